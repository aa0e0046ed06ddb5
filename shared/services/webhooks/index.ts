export * from './deliver';
export * from './endpoints';
export * from './events';
export * from './ssrf';
export * from './order-events';
export * from './test-event';
