import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { dashboardRoutes } from '../../api/dashboard/routes';
import { allRoutes } from '../../api/routes';

const ROOT = path.resolve(__dirname, '../..');
const DASHBOARD = path.join(ROOT, 'api/dashboard');

/**
 * Every route of the merchant dashboard (docs/dashboard.md), in the order the app mounts them: method, path
 * and operationId. Moving a page's code between files must leave this list as it is.
 */
const DASHBOARD_ROUTES: [string, string, string][] = [
  ['get', '/merchant/signin', 'dashboardSignInPage'],
  ['post', '/merchant/signin', 'dashboardSignInStart'],
  ['get', '/merchant/signup', 'dashboardSignUpPage'],
  ['post', '/merchant/signup', 'dashboardSignUpStart'],
  ['get', '/merchant/code', 'dashboardCodePage'],
  ['post', '/merchant/code', 'dashboardCodeVerify'],
  ['post', '/merchant/code/resend', 'dashboardCodeResend'],
  ['get', '/merchant/second-factor', 'dashboardSecondFactorPage'],
  ['post', '/merchant/second-factor', 'dashboardSecondFactorVerify'],
  ['post', '/merchant/signout', 'dashboardSignOut'],
  ['post', '/merchant/switch', 'dashboardSwitchStore'],
  ['get', '/merchant', 'dashboardHome'],
  ['get', '/merchant/assets/launch.js', 'dashboardLaunchScript'],
  ['post', '/merchant/products/{productId}/snippet-copied', 'dashboardSnippetCopied'],
  ['get', '/merchant/orders/{orderId}/refund', 'dashboardOrderRefundReload'],
  ['get', '/merchant/orders/{orderId}/status', 'dashboardOrderStatusReload'],
  ['get', '/merchant/orders', 'dashboardOrders'],
  ['get', '/merchant/orders/{orderId}', 'dashboardOrder'],
  ['post', '/merchant/orders/{orderId}/status', 'dashboardOrderStatus'],
  ['post', '/merchant/orders/{orderId}/refund', 'dashboardOrderRefund'],
  ['post', '/merchant/orders/{orderId}/resend', 'dashboardOrderResend'],
  ['get', '/merchant/customers', 'dashboardCustomers'],
  ['get', '/merchant/products', 'dashboardProducts'],
  ['get', '/merchant/products/new', 'dashboardProductNew'],
  ['post', '/merchant/products', 'dashboardProductCreate'],
  ['get', '/merchant/products/{productId}', 'dashboardProduct'],
  ['post', '/merchant/products/{productId}', 'dashboardProductUpdate'],
  ['get', '/merchant/assets/product-form.js', 'dashboardProductFormScript'],
  ['post', '/merchant/products/{productId}/keys/{keyId}/delete', 'dashboardProductKeyDelete'],
  ['get', '/merchant/staff', 'dashboardStaff'],
  ['post', '/merchant/staff', 'dashboardStaffInvite'],
  ['post', '/merchant/staff/{memberId}/grants', 'dashboardStaffGrants'],
  ['post', '/merchant/staff/{memberId}/remove', 'dashboardStaffRemove'],
  ['get', '/merchant/settings', 'dashboardSettings'],
  ['post', '/merchant/settings', 'dashboardSettingsSave'],
  ['post', '/merchant/settings/domains/verify', 'dashboardVerifyDomain'],
  ['post', '/merchant/settings/embed-key', 'dashboardRotateEmbedKey'],
  ['get', '/merchant/licenses', 'dashboardLicenses'],
  ['get', '/merchant/licenses/{licenseId}', 'dashboardLicense'],
  ['post', '/merchant/licenses/{licenseId}/suspend', 'dashboardLicenseSuspend'],
  ['post', '/merchant/licenses/{licenseId}/reactivate', 'dashboardLicenseReactivate'],
  ['post', '/merchant/licenses/{licenseId}/reset', 'dashboardLicenseReset'],
  ['get', '/merchant/reviews', 'dashboardReviews'],
  ['post', '/merchant/reviews/{reviewId}', 'dashboardReviewModerate'],
  ['post', '/merchant/reviews/{reviewId}/reply', 'dashboardReviewReply'],
  ['get', '/merchant/assets/keys.js', 'dashboardKeysScript'],
  ['get', '/merchant/products/{productId}/keys', 'dashboardProductKeys'],
  ['post', '/merchant/products/{productId}/keys', 'dashboardProductKeysAdd'],
  ['get', '/merchant/assets/files.js', 'dashboardFilesScript'],
  ['get', '/merchant/products/{productId}/files', 'dashboardProductFiles'],
  ['post', '/merchant/products/{productId}/files', 'dashboardProductFileUpload'],
  ['post', '/merchant/products/{productId}/files/{fileId}/remove', 'dashboardProductFileRemove'],
  ['get', '/merchant/tokens', 'dashboardTokens'],
  ['post', '/merchant/tokens', 'dashboardTokenCreate'],
  ['post', '/merchant/tokens/{tokenId}/revoke', 'dashboardTokenRevoke'],
  ['get', '/merchant/store-page', 'dashboardStorePage'],
  ['post', '/merchant/store-page', 'dashboardStorePageSave'],
  ['get', '/merchant/webhooks', 'dashboardWebhooks'],
  ['post', '/merchant/webhooks', 'dashboardWebhookCreate'],
  ['post', '/merchant/webhooks/{endpointId}/delete', 'dashboardWebhookDelete'],
  ['post', '/merchant/webhooks/{endpointId}/test', 'dashboardWebhookTest'],
  ['post', '/merchant/webhooks/deliveries/{deliveryId}/replay', 'dashboardWebhookReplay'],
  ['get', '/merchant/coupons', 'dashboardCoupons'],
  ['get', '/merchant/coupons/new', 'dashboardCouponNew'],
  ['post', '/merchant/coupons', 'dashboardCouponCreate'],
  ['get', '/merchant/coupons/{couponId}', 'dashboardCoupon'],
  ['post', '/merchant/coupons/{couponId}', 'dashboardCouponUpdate'],
  ['post', '/merchant/coupons/{couponId}/active', 'dashboardCouponActive'],
  ['get', '/merchant/categories', 'dashboardCategories'],
  ['post', '/merchant/categories', 'dashboardCategoryCreate'],
  ['post', '/merchant/categories/{categoryId}/delete', 'dashboardCategoryDelete'],
  ['get', '/merchant/payments', 'dashboardPayments'],
  ['post', '/merchant/payments/{method}', 'dashboardPaymentSave'],
  ['get', '/merchant/fivem', 'dashboardFivemServers'],
  ['post', '/merchant/fivem', 'dashboardFivemServerCreate'],
  ['post', '/merchant/fivem/{serverId}/revoke', 'dashboardFivemServerRevoke'],
  ['get', '/merchant/security', 'dashboardSecurity'],
  ['post', '/merchant/security/totp', 'dashboardSecurityTotpStart'],
  ['post', '/merchant/security/totp/confirm', 'dashboardSecurityTotpConfirm'],
  ['post', '/merchant/security/totp/disable', 'dashboardSecurityTotpDisable'],
  ['post', '/merchant/security/sessions/{sessionId}/revoke', 'dashboardSessionRevoke'],
  ['get', '/merchant/einvoicing', 'dashboardEinvoicing'],
  ['post', '/merchant/einvoicing/onboard', 'dashboardEinvoicingOnboard'],
  ['post', '/merchant/einvoicing/compliance', 'dashboardEinvoicingCompliance'],
  ['post', '/merchant/einvoicing/activate', 'dashboardEinvoicingActivate'],
  ['post', '/merchant/einvoicing/renew', 'dashboardEinvoicingRenew'],
  ['get', '/merchant/einvoicing/documents/{documentId}/xml', 'dashboardEinvoiceXml'],
  ['get', '/merchant/growth', 'dashboardGrowth'],
  ['post', '/merchant/growth/sales', 'dashboardSaleCreate'],
  ['post', '/merchant/growth/sales/{saleId}/delete', 'dashboardSaleDelete'],
  ['post', '/merchant/growth/settings', 'dashboardGrowthSettings'],
  ['post', '/merchant/growth/creators', 'dashboardCreatorCreate'],
  ['get', '/merchant/fraud', 'dashboardFraud'],
  ['post', '/merchant/fraud/settings', 'dashboardFraudSettingsSave'],
  ['post', '/merchant/fraud/orders/{orderId}/approve', 'dashboardFraudApprove'],
  ['post', '/merchant/fraud/orders/{orderId}/refund', 'dashboardFraudRefund'],
  ['post', '/merchant/fraud/claims/{claimId}/approve', 'dashboardClaimApprove'],
  ['post', '/merchant/fraud/claims/{claimId}/decline', 'dashboardClaimDecline'],
  ['get', '/merchant/preferences', 'dashboardPreferences'],
  ['post', '/merchant/preferences', 'dashboardPreferencesSave'],
];

function* walk(dir: string): Generator<string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.name.endsWith('.ts')) yield full;
  }
}

/** Lines that are neither blank nor a comment. */
function logicLines(source: string): number {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true);
  const code = new Set<number>();
  const visit = (node: ts.Node): void => {
    const token = node.kind >= ts.SyntaxKind.FirstToken && node.kind <= ts.SyntaxKind.LastToken;
    if (token && node.kind !== ts.SyntaxKind.EndOfFileToken) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      for (let l = start; l <= end; l += 1) code.add(l);
    }
    node.getChildren(file).forEach(visit);
  };
  visit(file);
  return code.size;
}

/** The names a file declares at its top level (functions, constants, types). */
function topLevelNames(source: string): string[] {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  for (const s of file.statements) {
    if (ts.isFunctionDeclaration(s) && s.name) names.push(s.name.text);
    if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    }
  }
  return names;
}

describe('dashboard routes', () => {
  it('the dashboard mounts every one of its routes, in the same order', () => {
    const mounted = dashboardRoutes.map((r) => [r.method, r.path, r.operationId]);
    expect(mounted).to.deep.equal(DASHBOARD_ROUTES);
    const app = allRoutes({ nodeEnv: 'production' })
      .filter((r) => r.path === '/merchant' || r.path.startsWith('/merchant/'))
      .map((r) => [r.method, r.path, r.operationId]);
    expect(app).to.deep.equal(DASHBOARD_ROUTES);
  });

  it('each page lives in a folder of its own under api/dashboard/pages, with its routes', () => {
    const pages = fs.readdirSync(path.join(DASHBOARD, 'pages'));
    expect(pages.length).to.be.above(15);
    for (const page of pages) {
      expect(fs.existsSync(path.join(DASHBOARD, 'pages', page, 'routes.ts')), page).to.equal(true);
    }
    const loose = fs.readdirSync(DASHBOARD).filter((f) => /-(routes|views)\.ts$/.test(f));
    expect(loose).to.deep.equal([]);
  });

  it('the form helpers are declared once, in api/dashboard/forms.ts', () => {
    const shared = ['formBody', 'guardedAnswers', 'postAnswers', 'notFound', 'listField', 'fieldErrors'];
    const declared = [...walk(DASHBOARD)].flatMap((file) =>
      topLevelNames(fs.readFileSync(file, 'utf8'))
        .filter((name) => shared.includes(name) || name === 'dashboardActor')
        .map((name) => `${path.relative(ROOT, file)}: ${name}`),
    );
    expect(declared.sort()).to.deep.equal(
      [...shared, 'dashboardActor'].map((name) => `api/dashboard/forms.ts: ${name}`).sort(),
    );
  });

  it('no file under api/ holds more than 500 lines of logic (message tables are data; test/unit/file-size.test.ts holds the rule for every folder)', () => {
    const data = new Set(['api/dashboard/i18n.ts']);
    const over = [...walk(path.join(ROOT, 'api'))]
      .map((file) => ({ file: path.relative(ROOT, file), lines: logicLines(fs.readFileSync(file, 'utf8')) }))
      .filter(({ file, lines }) => lines > 500 && !data.has(file))
      .map(({ file, lines }) => `${file}: ${lines}`);
    expect(over).to.deep.equal([]);
    expect(logicLines('// a comment\n\nconst a = 1;\n/* two\n lines */\nconst b = 2;\n')).to.equal(2);
  });
});
