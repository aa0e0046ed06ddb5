import Joi from 'joi';
import { FIVEM_ACK_LIMIT } from '../../shared/services/fivem';

/** The shape of a player id the platform queues commands for (see resolvePlayer). */
export const playerParams = Joi.object({
  playerId: Joi.string()
    .pattern(/^[A-Za-z0-9:_.-]{1,64}$/)
    .required()
    .messages({
      'string.pattern.base':
        'playerId must be 1 to 64 letters, digits or : _ . - (a server id or an identifier such as license:abc)',
    }),
});
export interface PlayerParams {
  playerId: string;
}

/** The ids of commands the game server ran. Strings, decimals and negative numbers are refused. */
export const acknowledgeBody = Joi.object({
  ids: Joi.array()
    .items(Joi.number().strict().integer().positive().max(2_147_483_647))
    .min(1)
    .max(FIVEM_ACK_LIMIT)
    .required()
    .messages({ 'array.max': `ids may hold at most ${FIVEM_ACK_LIMIT} ids; acknowledge in batches` }),
});
export interface AcknowledgeBody {
  ids: number[];
}
