import Joi from 'joi';
import { FIVEM_ACK_LIMIT } from '../../shared/services/fivem';
import { isPlayerId, PLAYER_ID_RULE } from '../../shared/services/fulfilment/fivem';
import { MAX_INT } from '../http/fields';

export interface PlayerParams {
  playerId: string;
}

/** The shape of a player id the platform queues commands for (see resolvePlayer). */
export const playerParams = Joi.object<PlayerParams, true>({
  playerId: Joi.string()
    .max(70)
    .required()
    .custom((value: string, helpers) => (isPlayerId(value) ? value : helpers.error('any.invalid')))
    .description('The player id as listed in `data.players` (e.g. `license:abc123`, `steam:1100001…`, `12`).')
    .messages({ 'any.invalid': `playerId ${PLAYER_ID_RULE}` }),
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
