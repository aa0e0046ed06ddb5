export * from './create';
export * from './send';
export * from './settle';
export * from './succeeded';
export * from './sweep';
export * from './view';
export * from './notify';
