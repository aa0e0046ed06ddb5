import Joi from 'joi';
import { STORE_ROLES, StoreRole } from '../../../../db/models';
import { ConflictError, InvalidError, NotFoundError, ValidationError } from '../../../../shared/errors';
import {
  inviteStaff,
  listStaff,
  removeStaff,
  setMemberGrants,
} from '../../../../shared/services/staff/accounts';
import { type Permission } from '../../../../shared/services/staff/roles';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, formField, messagePage, signedIn } from '../../session';
import { staffView } from './view';
import { formBody, guardedAnswers, postAnswers, idParam, notFound, dashboardActor } from '../../forms';

/** The staff page: invite, grants, remove (owners only, shared/services/staff/roles.ts). */

export const dashboardStaffRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/staff',
    interface: 'platform',
    operationId: 'dashboardStaff',
    summary: 'Merchant dashboard: staff',
    description: 'The store’s members and their roles, and the invite form. Owners only.',
    guards: signedIn('staff.manage'),
    request: {
      query: Joi.object({ lang: Joi.string().valid('ar', 'en'), saved: Joi.string().valid('1') }),
    },
    responses: { 200: htmlResponse('The staff page.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      const { store, shell } = dashboardOf(ctx);
      const staff = await listStaff(ctx.deps.knex, store.id);
      sendPage(ctx, {
        status: 200,
        html: staffView(shell, staff, {
          values: { name: '', country_code: '966', phone: '', role: 'support' },
          error: null,
          notice: (query as { saved?: string }).saved === '1' ? shell.t.grantsSaved : null,
        }),
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/staff',
    interface: 'platform',
    operationId: 'dashboardStaffInvite',
    summary: 'Merchant dashboard: invite a team member',
    description:
      'Form fields `name`, `country_code`, `phone`, `role` (owner, manager, support). They sign in with that phone.',
    guards: signedIn('staff.manage'),
    request: formBody({
      name: Joi.string().allow('').max(400),
      country_code: Joi.string().allow('').max(8),
      phone: Joi.string().allow('').max(40),
      role: Joi.string().allow('').max(20),
    }),
    responses: {
      200: htmlResponse('The staff page with the new member.'),
      409: htmlResponse('The phone is already on the staff.'),
      422: htmlResponse('A bad phone or role.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const values = {
        name: formField(ctx, 'name').trim(),
        country_code: formField(ctx, 'country_code').trim(),
        phone: formField(ctx, 'phone').trim(),
        role: formField(ctx, 'role'),
      };
      let status = 200;
      let error: string | null = null;
      let notice: string | null = null;
      if (!(STORE_ROLES as readonly string[]).includes(values.role)) {
        status = 422;
        error = shell.t.errInvalidPhone;
      } else {
        try {
          await inviteStaff(ctx.deps.knex, store.id, s.user.id, {
            ...values,
            role: values.role as StoreRole,
          });
          notice = shell.t.invited;
        } catch (err) {
          if (err instanceof ValidationError) [status, error] = [422, shell.t.errInvalidPhone];
          else if (err instanceof ConflictError) [status, error] = [409, shell.t.errAlreadyStaff];
          else throw err;
        }
      }
      const staff = await listStaff(ctx.deps.knex, store.id);
      const shown = notice
        ? { name: '', country_code: values.country_code, phone: '', role: 'support' }
        : values;
      sendPage(ctx, { status, html: staffView(shell, staff, { values: shown, error, notice }) });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/staff/{memberId}/grants',
    interface: 'platform',
    operationId: 'dashboardStaffGrants',
    summary: 'Merchant dashboard: what a team member may do beyond their role',
    description:
      'Owners only. Form field `confirm_payment` (`1`, the checkbox ticked; absent, not): the member may ' +
      'confirm bank transfers and PayPal payments, which releases the goods (support has it only so ' +
      'granted; owners and managers by their role). Audited. 303 to the staff page.',
    guards: signedIn('staff.manage'),
    request: {
      params: idParam('memberId') as Joi.ObjectSchema<{ memberId: number }>,
      ...formBody({ confirm_payment: Joi.string().valid('1') }),
    },
    responses: {
      303: redirectResponse('Saved: to the staff page.'),
      404: htmlResponse('No such member in this store.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, signedIn: s } = dashboardOf(ctx);
      const grants: Permission[] =
        formField(ctx, 'confirm_payment') === '1' ? ['orders.confirm_payment'] : [];
      try {
        await setMemberGrants(ctx.deps.knex, dashboardActor(store.id, s.user), params.memberId, grants);
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/staff?saved=1' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/staff/{memberId}/remove',
    interface: 'platform',
    operationId: 'dashboardStaffRemove',
    summary: 'Merchant dashboard: remove a team member',
    description: 'The store always keeps at least one owner. 303 to the staff page.',
    guards: signedIn('staff.manage'),
    request: { params: idParam('memberId') as Joi.ObjectSchema<{ memberId: number }>, ...formBody({}) },
    responses: {
      303: redirectResponse('Removed: to the staff page.'),
      404: htmlResponse('No such member in this store.'),
      409: htmlResponse('The last owner cannot be removed.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell } = dashboardOf(ctx);
      try {
        await removeStaff(ctx.deps.knex, store.id, params.memberId);
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        if (err instanceof InvalidError)
          return sendPage(ctx, messagePage(shell, 409, shell.t.staff, shell.t.errLastOwner));
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/staff' });
    },
  }),
];
