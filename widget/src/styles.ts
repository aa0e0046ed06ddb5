/**
 * The dialog's CSS, applied inside its shadow root: the host page's styles do not reach in and ours do not
 * leak out. Given as a constructed stylesheet, which a Content-Security-Policy without 'unsafe-inline'
 * still allows (a <style> element would be blocked).
 */
export const CSS = `
:host{all:initial!important;display:block!important}
.mj{all:initial;--bg:#fff;--fg:#1a1d23;--muted:#5d6470;--line:#d9dde3;--soft:#f3f5f8;--accent:#4f46e5;--accent-fg:#fff;--err:#b42318;--ok:#067647;
display:block;position:fixed;inset:0;margin:auto;z-index:2147483647;box-sizing:border-box;width:min(460px,calc(100% - 16px));height:fit-content;max-height:calc(100% - 16px);overflow:auto;
font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans Arabic",Tahoma,sans-serif;color:var(--fg);background:var(--bg);border-radius:14px;box-shadow:0 20px 60px rgba(0,0,0,.35);outline:none;text-align:start}
.mj::backdrop{background:rgba(15,18,25,.55)}
.mj[data-theme=dark]{--bg:#171a21;--fg:#eceef2;--muted:#a3aab6;--line:#343a46;--soft:#222631;--accent:#8b85ff;--accent-fg:#0d0f14;--err:#ff8a80;--ok:#6ce9a6}
@media (prefers-color-scheme:dark){.mj[data-theme=auto]{--bg:#171a21;--fg:#eceef2;--muted:#a3aab6;--line:#343a46;--soft:#222631;--accent:#8b85ff;--accent-fg:#0d0f14;--err:#ff8a80;--ok:#6ce9a6}}
*,*::before,*::after{box-sizing:border-box}
header{display:flex;align-items:flex-start;gap:8px;padding:16px 16px 8px;position:sticky;top:0;background:var(--bg);z-index:1}
h2{margin:0;font-size:18px;flex:1;line-height:1.3}
h3{margin:0 0 8px;font-size:15px}
.x{flex:none;width:36px;height:36px;border-radius:8px;border:0;background:var(--soft);color:var(--fg);font-size:20px;line-height:1;cursor:pointer}
.body{padding:0 16px 16px}
section{border-top:1px solid var(--line);padding:12px 0}
p{margin:0 0 8px}
.muted{color:var(--muted);font-size:13px}
.price{font-size:20px;font-weight:700}
.price s{color:var(--muted);font-weight:400;font-size:15px;margin-inline-start:8px}
.row{display:flex;gap:8px;align-items:flex-start;flex-wrap:wrap}
.row>.btn{margin-top:23px}
.row>.f{flex:1 1 120px}
.f{display:block;margin:0 0 10px}
.f>label,legend{display:block;font-size:13px;font-weight:600;margin:0 0 4px}
input,select,textarea,button{font:inherit;color:inherit}
input:not([type=radio]):not([type=checkbox]),select,textarea{width:100%;min-height:40px;padding:8px 10px;border:1px solid var(--line);border-radius:8px;background:var(--bg)}
input[type=color]{padding:2px;height:40px}
input[type=file]{padding:6px}
textarea{min-height:60px;resize:vertical}
[aria-invalid=true]{border-color:var(--err)!important}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.ferr{color:var(--err);font-size:13px;margin-top:4px}
.ferr:empty{display:none}
fieldset{border:0;padding:0;margin:0 0 8px;min-width:0}
.seg{display:flex;gap:6px;flex-wrap:wrap}
.opt{display:flex;align-items:center;gap:8px;padding:10px 12px;border:1px solid var(--line);border-radius:8px;cursor:pointer;flex:1 1 140px;margin:0 0 6px}
.opt:has(input:checked){border-color:var(--accent);box-shadow:0 0 0 1px var(--accent)}
.opt input{margin:0;accent-color:var(--accent)}
.btn{display:inline-flex;align-items:center;justify-content:center;min-height:40px;padding:8px 14px;border-radius:8px;border:1px solid var(--line);background:var(--soft);cursor:pointer;text-decoration:none;color:var(--fg)}
.btn[disabled]{opacity:.55;cursor:not-allowed}
.primary{width:100%;background:var(--accent);color:var(--accent-fg);border-color:var(--accent);font-weight:700;min-height:46px;font-size:16px}
.link{background:none;border:0;padding:4px 0;color:var(--accent);text-decoration:underline;cursor:pointer}
.qty{display:flex;align-items:center;gap:6px}
.qty input{width:72px;text-align:center}
.qty .btn{width:40px;padding:0}
.sum{display:grid;grid-template-columns:1fr auto;gap:4px 12px;margin:0 0 12px}
.sum dd{margin:0;text-align:end}
.sum .t{font-weight:700;font-size:17px}
.ok{color:var(--ok)}
.alert{color:var(--err);background:color-mix(in srgb,var(--err) 10%,transparent);border-radius:8px;padding:8px 10px;margin:0 0 10px}
.alert:empty{display:none}
.alert:focus{outline:2px solid var(--err);outline-offset:1px}
.copy{display:grid;grid-template-columns:1fr auto;gap:6px 8px;align-items:center;margin:0 0 12px}
.copy dt{grid-column:1/-1;font-size:13px;color:var(--muted);margin-top:4px}
.copy dd{margin:0;font-weight:600;word-break:break-all;direction:ltr;text-align:start}
.center{text-align:center;padding:16px 0}
.big{font-size:26px;font-weight:800;letter-spacing:.5px;direction:ltr;unicode-bidi:isolate}
.spin{display:block;width:28px;height:28px;margin:12px auto;border:3px solid var(--line);border-top-color:var(--accent);border-radius:50%;animation:r 1s linear infinite}
@keyframes r{to{transform:rotate(1turn)}}
@media (prefers-reduced-motion:reduce){.spin{animation:none}}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;
