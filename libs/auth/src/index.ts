export * from './auth.config';
export * from './caller';
export * from './key-set';
export * from './local-keys';
export * from './token-verifier';
export * from './public.decorator';
