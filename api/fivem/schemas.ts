import Joi from 'joi';
import { FIVEM_ACK_LIMIT } from '../../shared/services/fivem';
import { MAX_INT } from '../http/fields';

export interface PlayerParams {
  playerId: string;
}

/** The shape of a player id the platform queues commands for (see resolvePlayer). */
export const playerParams = Joi.object<PlayerParams, true>({
  playerId: Joi.string()
    .pattern(/^[A-Za-z0-9:_.-]{1,64}$/)
    .required()
    .description('The player id as listed in `data.players` (e.g. `license:abc123`, `steam:1100001…`, `12`).')
    .messages({
      'string.pattern.base':
        'playerId must be 1 to 64 letters, digits or : _ . - (a server id or an identifier such as license:abc)',
    }),
});

export interface AcknowledgeBody {
  ids: number[];
}

/** The ids of commands the game server ran. Strings, decimals and negative numbers are refused. */
export const acknowledgeBody = Joi.object<AcknowledgeBody, true>({
  ids: Joi.array()
    .items(Joi.number().strict().integer().positive().max(MAX_INT))
    .min(1)
    .max(FIVEM_ACK_LIMIT)
    .required()
    .description(`Ids of commands that ran, 1 to ${FIVEM_ACK_LIMIT} per request.`)
    .messages({ 'array.max': `ids may hold at most ${FIVEM_ACK_LIMIT} ids; acknowledge in batches` }),
});
