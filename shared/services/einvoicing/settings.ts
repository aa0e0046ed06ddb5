import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Cipher } from '../../crypto';
import { buildCsr, CsrFields, generateKeyPair, selfIssuedCertificate } from './keys';

/**
 * A store's e-invoicing settings (`einvoice_settings`): its address as ZATCA's documents carry it, its EGS
 * unit, and its key and certificates (the private key and the API secrets sealed with the platform
 * cipher, shared/sealed-columns.ts).
 */

export const EGS_SOLUTION = 'Matjar';
export const EGS_MODEL = '1.0';

/** The seller's address fields (ZATCA: street, 4-digit building number, district, city, 5-digit postal code). */
export interface EinvoiceAddress {
  crn: string | null;
  street: string;
  building_number: string;
  district: string;
  city: string;
  postal_zone: string;
  branch_name: string;
  location: string;
  industry: string;
}

/** What simulation mode prints when the fixture gives only a free-form address. */
export const SIMULATION_ADDRESS: EinvoiceAddress = {
  crn: null,
  street: 'King Fahd Road',
  building_number: '1234',
  district: 'Al Olaya',
  city: 'Riyadh',
  postal_zone: '12211',
  branch_name: 'Main',
  location: 'Riyadh',
  industry: 'Digital goods',
};

/** The EGS unit's serial as ZATCA's CSR wants it: `1-<solution>|2-<model>|3-<device id>`. */
export function egsSerial(deviceId: string = crypto.randomUUID()): string {
  return `1-${EGS_SOLUTION}|2-${EGS_MODEL}|3-${deviceId}`;
}

export function csrFields(
  store: { legal_name: string | null; name: string; vat_number: string },
  a: EinvoiceAddress,
  serial: string,
  template: string,
): CsrFields {
  return {
    commonName: `${EGS_SOLUTION}-${store.vat_number}`,
    serialNumber: serial,
    vatNumber: store.vat_number,
    unit: a.branch_name,
    organization: store.legal_name ?? store.name,
    invoiceType: '0100',
    location: a.location,
    industry: a.industry,
    template,
  };
}

/**
 * Simulation mode (fixture `einvoicing: "simulation"`): a key and a self-issued test certificate, active at
 * once. Loading the fixture again keeps the key and certificate already made.
 */
export async function enableSimulation(
  trx: Knex.Transaction,
  cipher: Cipher,
  storeId: number,
  now: Date,
): Promise<void> {
  const existing = await trx('einvoice_settings').where({ store_id: storeId }).first('store_id');
  if (existing) return;
  const store = await trx('stores').where({ id: storeId }).first('legal_name', 'name', 'vat_number');
  const keys = generateKeyPair();
  const serial = egsSerial();
  const fields = csrFields(store, SIMULATION_ADDRESS, serial, 'PREZATCA-Code-Signing');
  const certificate = selfIssuedCertificate(keys.privateKeyPem, fields, now);
  await trx('einvoice_settings').insert({
    store_id: storeId,
    mode: 'simulation',
    status: 'active',
    ...SIMULATION_ADDRESS,
    egs_serial: serial,
    private_key_encrypted: cipher.encrypt(keys.privateKeyPem),
    csr: buildCsr(keys.privateKeyPem, fields),
    certificate: certificate.toString('base64'),
    // The stand-in for a production CSID's secret, so reporting sends the same Basic credentials.
    csid_secret_encrypted: cipher.encrypt(crypto.randomBytes(24).toString('base64')),
    certificate_expires_at: new Date(now.getTime() + 5 * 365 * 24 * 3600 * 1000),
  });
}
