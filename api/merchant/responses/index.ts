/** Answers of the Merchant API: the envelope around each resource, and the resources' shapes. */

export * from './envelope';
export { obj, pageOf } from './scalars';
export * from './orders';
export * from './catalogue';
export * from './subscriptions';
export * from './webhooks';
export * from './store';
