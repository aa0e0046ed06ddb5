export * from './lifecycle';
export * from './queue';
export * from './servers';
