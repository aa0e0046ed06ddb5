import type { Knex } from 'knex';
import { MerchantUser, Store, StoreMember, StoreRole } from '../../../db/models';
import { randomToken } from '../../crypto';
import { ConflictError, InvalidError, NotFoundError, ValidationError } from '../../errors';
import { parsePhone, Phone } from '../../phone';
import { type Actor, recordAudit } from '../audit';
import { GRANTABLE, type Permission } from './roles';

/**
 * People who run stores (merchant users, one per phone) and their roles in stores (store members).
 * A person signs in with their phone; the stores they may act on are their memberships.
 */

export const STORE_NAME_MAX = 200;
export const PERSON_NAME_MAX = 200;

export interface Membership {
  store_id: number;
  store_name: string;
  role: StoreRole;
  /** Permissions an owner granted on top of the role (roles.ts, GRANTABLE). */
  grants: string[];
}

/** The person with this phone, created (with `name`) when new; a later non-empty name fills an empty one. */
export async function findOrCreateUser(knex: Knex, phone: Phone, name = ''): Promise<MerchantUser> {
  await knex('merchant_users')
    .insert({ name, country_code: phone.countryCode, phone: phone.national, e164: phone.e164 })
    .onConflict('e164')
    .ignore();
  const user = await MerchantUser.query(knex).findOne({ e164: phone.e164 });
  if (!user) throw new Error(`merchant user ${phone.e164} vanished`);
  if (name && !user.name) return user.$query(knex).patchAndFetch({ name });
  return user;
}

export async function findUserByPhone(knex: Knex, e164: string): Promise<MerchantUser | undefined> {
  return MerchantUser.query(knex).findOne({ e164 });
}

export async function findUserById(knex: Knex, id: number): Promise<MerchantUser | undefined> {
  return MerchantUser.query(knex).findById(id);
}

/** The stores this person may act on, oldest membership first. */
export async function membershipsOf(knex: Knex, userId: number): Promise<Membership[]> {
  const rows = await knex('store_members as m')
    .join('stores as s', 's.id', 'm.store_id')
    .where('m.merchant_user_id', userId)
    .orderBy('m.id')
    .select('m.store_id', 's.name as store_name', 'm.role', 'm.grants');
  return rows as Membership[];
}

export async function membershipIn(
  knex: Knex,
  userId: number,
  storeId: number,
): Promise<Membership | undefined> {
  return (await membershipsOf(knex, userId)).find((m) => m.store_id === storeId);
}

/**
 * Sign-up: a new store on the free plan (SAR, an embed key of its own) with this person as its owner, in
 * one transaction. The same person may own several stores.
 */
export async function createStoreWithOwner(
  knex: Knex,
  input: { storeName: string; ownerName?: string; phone: Phone },
): Promise<{ store: Store; user: MerchantUser }> {
  const storeName = input.storeName.trim();
  if (!storeName) throw ValidationError.field('store_name', 'The store name is required.');
  if (storeName.length > STORE_NAME_MAX) {
    throw ValidationError.field('store_name', `The store name is at most ${STORE_NAME_MAX} characters.`);
  }
  return knex.transaction(async (trx) => {
    const user = await findOrCreateUser(trx, input.phone, (input.ownerName ?? '').trim());
    const store = await Store.query(trx).insertAndFetch({
      name: storeName,
      currency: 'SAR',
      plan: 'free',
      tax_mode: 'none',
      tax_rate_bp: 0,
      embed_key: randomToken(24, 'emb_pk_'),
      allowed_origins: [],
    });
    await StoreMember.query(trx).insert({ store_id: store.id, merchant_user_id: user.id, role: 'owner' });
    return { store, user };
  });
}

export interface StaffMember {
  id: number;
  merchant_user_id: number;
  name: string;
  country_code: string;
  phone: string;
  role: StoreRole;
  grants: string[];
  created_at: Date;
}

export async function listStaff(knex: Knex, storeId: number): Promise<StaffMember[]> {
  return (await knex('store_members as m')
    .join('merchant_users as u', 'u.id', 'm.merchant_user_id')
    .where('m.store_id', storeId)
    .orderBy('m.id')
    .select(
      'm.id',
      'm.merchant_user_id',
      'u.name',
      'u.country_code',
      'u.phone',
      'm.role',
      'm.grants',
      'm.created_at',
    )) as StaffMember[];
}

/**
 * Sets what an owner grants a member on top of their role (only GRANTABLE permissions; shared/services/
 * dashboard/roles.ts), with an audit row naming who changed it. Answers false when nothing changed.
 */
export async function setMemberGrants(
  knex: Knex,
  actor: Actor,
  memberId: number,
  grants: readonly Permission[],
): Promise<boolean> {
  const wanted = GRANTABLE.filter((p) => grants.includes(p));
  return knex.transaction(async (trx) => {
    const member = await trx('store_members')
      .where({ id: memberId, store_id: actor.storeId })
      .forUpdate()
      .first('id', 'grants');
    if (!member) throw new NotFoundError('Staff member not found');
    const before = [...((member.grants as string[] | null) ?? [])].sort();
    if (before.join(',') === [...wanted].sort().join(',')) return false;
    await trx('store_members')
      .where({ id: memberId })
      .update({ grants: trx.raw('?::text[]', [wanted]) });
    await recordAudit(
      trx,
      actor,
      'staff.grants_changed',
      { type: 'store_member', id: memberId },
      {
        grants: { from: before, to: wanted },
      },
    );
    return true;
  });
}

/** Adds a person (by phone) to the store with a role; they sign in with that phone. */
export async function inviteStaff(
  knex: Knex,
  storeId: number,
  invitedBy: number | null,
  input: { country_code: string; phone: string; name: string; role: StoreRole },
): Promise<StaffMember> {
  const phone = parsePhone(input.country_code, input.phone);
  if (!phone) throw ValidationError.field('phone', 'The phone number is not valid for this country code.');
  if (input.name.length > PERSON_NAME_MAX) {
    throw ValidationError.field('name', `The name is at most ${PERSON_NAME_MAX} characters.`);
  }
  return knex.transaction(async (trx) => {
    const user = await findOrCreateUser(trx, phone, input.name.trim());
    const inserted = await trx('store_members')
      .insert({ store_id: storeId, merchant_user_id: user.id, role: input.role, invited_by: invitedBy })
      .onConflict(['store_id', 'merchant_user_id'])
      .ignore()
      .returning('id');
    if (inserted.length === 0) throw new ConflictError('This phone number is already on the staff.');
    const member = (await listStaff(trx, storeId)).find((m) => m.merchant_user_id === user.id);
    if (!member) throw new Error('staff member vanished');
    return member;
  });
}

/**
 * Removes a member. The store always keeps an owner: removing (or demoting) the last one is refused,
 * checked on locked rows so two owners removing each other at once cannot both succeed.
 */
export async function removeStaff(knex: Knex, storeId: number, memberId: number): Promise<void> {
  await knex.transaction(async (trx) => {
    const members = await trx('store_members').where('store_id', storeId).forUpdate().select('id', 'role');
    const member = members.find((m: { id: number }) => m.id === memberId);
    if (!member) throw new NotFoundError('Staff member not found');
    const owners = members.filter((m: { role: string }) => m.role === 'owner');
    if (member.role === 'owner' && owners.length <= 1) {
      throw new InvalidError('A store keeps at least one owner.');
    }
    await trx('store_members').where({ id: memberId }).delete();
  });
}

/**
 * The fixture's store owner: the person with that phone becomes (or stays) an owner of the store.
 * Loading the same fixture twice changes nothing.
 */
export async function syncFixtureOwner(
  knex: Knex,
  storeId: number,
  owner: { name: string; country_code: string; phone: string },
): Promise<void> {
  const phone: Phone = {
    countryCode: owner.country_code,
    national: owner.phone,
    e164: owner.country_code + owner.phone,
  };
  const user = await findOrCreateUser(knex, phone, owner.name);
  if (owner.name && user.name !== owner.name) await user.$query(knex).patch({ name: owner.name });
  await knex('store_members')
    .insert({ store_id: storeId, merchant_user_id: user.id, role: 'owner' })
    .onConflict(['store_id', 'merchant_user_id'])
    .merge({ role: 'owner' });
}
