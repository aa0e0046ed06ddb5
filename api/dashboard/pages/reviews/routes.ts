import Joi from 'joi';
import { NotFoundError } from '../../../../shared/errors';
import {
  listStoreReviews,
  REVIEW_REPLY_MAX,
  setReviewPublished,
  setReviewReply,
} from '../../../../shared/services/reviews/manage';
import { formBody, guardedAnswers, langParam, notFound, postAnswers } from '../../forms';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, formField, signedIn } from '../../session';
import { reviewsView } from './view';

/** Review moderation: publish or hide what buyers wrote. */

export const dashboardReviewRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/reviews',
    interface: 'platform',
    operationId: 'dashboardReviews',
    summary: 'Merchant dashboard: reviews',
    description:
      '`show`: `waiting` (default: not yet published), `published` or `all`; 20 a page. Each can be ' +
      'published or hidden.',
    guards: signedIn('reviews.moderate'),
    request: {
      query: Joi.object<
        { page: number; show: 'waiting' | 'published' | 'all'; done?: string; lang?: string },
        true
      >({
        page: Joi.number().integer().min(1).max(100_000).default(1),
        show: Joi.string().valid('waiting', 'published', 'all').default('waiting'),
        done: Joi.string().valid('published', 'hidden', 'replied'),
        lang: langParam,
      }),
    },
    responses: { 200: htmlResponse('The reviews.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      const { store, shell } = dashboardOf(ctx);
      const list = await listStoreReviews(ctx.deps.knex, store.id, query.show, query.page);
      const message =
        query.done === 'published'
          ? shell.t.reviewPublished
          : query.done === 'hidden'
            ? shell.t.reviewHidden
            : query.done === 'replied'
              ? shell.t.reviewReplied
              : null;
      sendPage(ctx, { status: 200, html: reviewsView(shell, list, query.page, query.show, message) });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/reviews/{reviewId}',
    interface: 'platform',
    operationId: 'dashboardReviewModerate',
    summary: 'Merchant dashboard: publish or hide a review',
    description: 'Form fields `published` (`1` publish, `0` hide), `show` (the list to go back to). 303.',
    guards: signedIn('reviews.moderate'),
    request: {
      params: Joi.object({
        reviewId: Joi.number().integer().min(1).max(2_147_483_647).required(),
      }) as Joi.ObjectSchema<{ reviewId: number }>,
      ...formBody({
        published: Joi.string().valid('0', '1').required(),
        show: Joi.string().valid('waiting', 'published', 'all'),
      }),
    },
    responses: {
      303: redirectResponse('Done: back to the list.'),
      404: htmlResponse('No such review in this store.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store } = dashboardOf(ctx);
      const published = formField(ctx, 'published') === '1';
      try {
        await setReviewPublished(ctx.deps, store.id, params.reviewId, published);
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        throw err;
      }
      const show = formField(ctx, 'show') || 'waiting';
      sendPage(ctx, {
        status: 303,
        location: `/merchant/reviews?show=${encodeURIComponent(show)}&done=${published ? 'published' : 'hidden'}`,
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/reviews/{reviewId}/reply',
    interface: 'platform',
    operationId: 'dashboardReviewReply',
    summary: 'Merchant dashboard: reply to a review',
    description: `Form field \`reply\` (up to ${REVIEW_REPLY_MAX} characters; empty withdraws the reply), shown under the review wherever it is published. 303.`,
    guards: signedIn('reviews.moderate'),
    request: {
      params: Joi.object({
        reviewId: Joi.number().integer().min(1).max(2_147_483_647).required(),
      }) as Joi.ObjectSchema<{ reviewId: number }>,
      ...formBody({
        reply: Joi.string().allow('').max(REVIEW_REPLY_MAX).required(),
        show: Joi.string().valid('waiting', 'published', 'all'),
      }),
    },
    responses: {
      303: redirectResponse('Done: back to the list.'),
      404: htmlResponse('No such review in this store.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store } = dashboardOf(ctx);
      try {
        await setReviewReply(ctx.deps, store.id, params.reviewId, formField(ctx, 'reply'));
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        throw err;
      }
      const show = formField(ctx, 'show') || 'waiting';
      sendPage(ctx, {
        status: 303,
        location: `/merchant/reviews?show=${encodeURIComponent(show)}&done=replied`,
      });
    },
  }),
];
