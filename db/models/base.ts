import { Model, ModelOptions, QueryContext } from 'objection';
import pg from 'pg';

// bigint (int8) and count(*) arrive as strings by default. Every bigint this platform stores (money in
// minor units, ids, counts) stays far below 2^53, so they are read as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value: string) => Number(value));

/**
 * jsonb columns are listed per model in `jsonAttributes`: without it the pg driver would send a JS array as
 * a Postgres array literal ('{}' for []) instead of JSON. text[] columns must not be listed.
 */
export class BaseModel extends Model {
  override $beforeUpdate(_opt: ModelOptions, _ctx: QueryContext): void {
    if ((this.constructor as typeof BaseModel).hasUpdatedAt) {
      (this as unknown as { updated_at: Date }).updated_at = new Date();
    }
  }

  /** Tables with an updated_at column set it on every update through the model. */
  static hasUpdatedAt = false;
}
