/** One message to one phone. `to` is country code + national number, digits only. */
export interface OutgoingMessage {
  to: string;
  body: string;
  /** whatsapp_first: try WhatsApp, fall back to SMS when the number cannot get WhatsApp. */
  route: 'whatsapp_first' | 'sms_only';
  purpose: 'otp' | 'order_delivery' | string;
  storeId?: number | null;
  /**
   * Unique to this message (e.g. `otp:<session>:v<code version>`): a send under a key already sent does
   * nothing and answers `duplicate` (message_sends, docs/outages.md). Without a key nothing is deduplicated.
   */
  key?: string;
}

export interface DeliveryResult {
  channel: 'whatsapp' | 'sms';
  providerMessageId: string | null;
  /** True when the key had been sent before: nothing was sent this time. */
  duplicate?: boolean;
}

export interface Messenger {
  readonly driver: 'outbox' | 'twilio';
  send(message: OutgoingMessage): Promise<DeliveryResult>;
}
