export * from './delivery';
export * from './fivem';
export * from './fulfil';
export * from './rules';
export * from './subscriptions';
export * from './enqueue';
export * from './resend';
