import { BaseModel } from './base';

/** Records kept beside the flows: analytics events, outbound messages, idempotency records. */
export class AnalyticsEvent extends BaseModel {
  static override tableName = 'analytics_events';
  static override jsonAttributes = ['properties'];
  id!: number;
  store_id!: number;
  type!: 'pageview' | 'event' | 'outbound_click';
  session_id!: string | null;
  visitor_id!: string | null;
  url!: string | null;
  path!: string | null;
  event_name!: string | null;
  properties!: Record<string, unknown> | null;
  title!: string | null;
  referrer!: string | null;
  screen_width!: number | null;
  destination!: string | null;
  text!: string | null;
  occurred_at!: Date;
  created_at!: Date;
}

export class OutboundMessage extends BaseModel {
  static override tableName = 'outbound_messages';
  id!: number;
  store_id!: number | null;
  to!: string;
  channel!: 'whatsapp' | 'sms';
  driver!: 'outbox' | 'twilio';
  body!: string | null;
  purpose!: string;
  status!: 'sent' | 'failed';
  provider_message_id!: string | null;
  error_code!: string | null;
  error_message!: string | null;
  created_at!: Date;
}

export class IdempotencyRecord extends BaseModel {
  static override tableName = 'idempotency_records';
  static override jsonAttributes = ['response'];
  id!: number;
  store_id!: number;
  scope!: string;
  request_hash!: string;
  resource_type!: string | null;
  resource_id!: number | null;
  response!: Record<string, unknown> | null;
  expires_at!: Date;
  created_at!: Date;
}
