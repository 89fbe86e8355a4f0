/**
 * The service that accepts requests: it issues them (POST /tasks) or adopts outside ones, and alone
 * writes TaskAccepted. Quota and generation act on TaskAccepted only, never on an outside
 * TaskRequested: whether an idempotency key was used before is decided in one place, since copies of
 * one request under different taskIds land on different partitions and reach each consumer in its
 * own order — and on Kafka, only the tasks principal may write `task-accepted`.
 */
export const requestAcceptor = 'tasks';
