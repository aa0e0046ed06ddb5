import type { DomainJobs } from '../../queues/handlers';
import { sendClaimMessage } from './claims-notify';

/** The fraud domain's queue work: the merchant's answer to a key replacement claim, sent to the buyer. */
export const fraudJobs = {
  messages: { key_claim: (deps, data) => sendClaimMessage(deps, data.claimId) },
} satisfies DomainJobs;
