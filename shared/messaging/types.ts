/** One message to one phone. `to` is country code + national number, digits only. */
export interface OutgoingMessage {
  to: string;
  body: string;
  /** whatsapp_first: try WhatsApp, fall back to SMS when the number cannot get WhatsApp. */
  route: 'whatsapp_first' | 'sms_only';
  purpose: 'otp' | 'order_delivery' | string;
  storeId?: number | null;
}

export interface DeliveryResult {
  channel: 'whatsapp' | 'sms';
  providerMessageId: string | null;
}

export interface Messenger {
  readonly driver: 'outbox' | 'twilio';
  send(message: OutgoingMessage): Promise<DeliveryResult>;
}
