/** A generation job as the store reads it: one per task. */
export interface Job {
  task_id: string;
  user_id: string;
  correlation_id: string;
  report_type: string;
  input: unknown;
  debit_event_id: string;
  attempts: number;
  traceparent: string | null;
  /** When it became due (or is to be tried again). */
  next_attempt_at?: Date | string | null;
  /** The kept (wrapped) data key of a sealed input, read with the job (null: none kept); absent when not read with it. */
  wrapped_key?: string | null;
}

/** The job's `wrapped_key`, as a column of a statement that reads or returns generation_jobs rows. */
export const wrappedKeyColumn = `(select k.wrapped from user_data_keys k where k.key_id::text = split_part(generation_jobs.input, ':', 3)) as wrapped_key`;
