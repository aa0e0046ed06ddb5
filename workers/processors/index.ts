import { maintenanceProcessor } from './maintenance';
import { otpProcessor } from './otp';
import type { ProcessorRegistry } from './types';

export type { JobOf, ProcessorRegistry, QueueProcessor } from './types';

/**
 * Every queue this codebase can process. A queue is listed once its processor exists; until then its jobs
 * wait in Redis (visible on the dashboard) rather than being failed by a placeholder.
 */
export const processors: ProcessorRegistry = {
  maintenance: maintenanceProcessor,
  otp: otpProcessor,
};
