import { Injectable } from '@nestjs/common';
import { ModelClient } from '../model/model.client';
import { ReportStore } from './report-store';

/** What a failed job leaves behind, whoever failed it: temporary files, and the model request it started. */
@Injectable()
export class FailedJobCleanup {
  constructor(
    private readonly model: ModelClient,
    private readonly reports: ReportStore,
  ) {}

  async cleanUp(taskId: string, lastAttempt: number): Promise<void> {
    await this.reports.removeTemporaryFiles(taskId);
    if (lastAttempt > 0) await this.model.cancel({ taskId, attempt: lastAttempt });
  }
}
