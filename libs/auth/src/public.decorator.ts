import { SetMetadata } from '@nestjs/common';

export const isPublicKey = 'task-platform:public';

/** Marks a route (or controller) that answers without a token: /health, /metrics, the API docs. */
export const Public = () => SetMetadata(isPublicKey, true);
