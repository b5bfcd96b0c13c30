// The console's real-browser test (docs/console.md): Debian's Chromium,
// driven by playwright-core, walks the flows a person would — sign in,
// upload by drop and paste, copy a link, manage files and albums, eleven
// uploads with the format picker and Copy all, the gallery's viewer and its
// batch actions, share a
// file with a password and open it signed out, tokens and a ShareX file, two-factor sign-in, and an administrator disabling the
// account — and fails on anything a person would notice: a console error
// or warning, an uncaught exception, a failed request, an unexpected HTTP
// error, a Content Security Policy violation, a serious accessibility
// problem found by axe-core (in light and in dark mode), or a page wider
// than a 360 pixel phone screen (it would scroll sideways: look() names the
// elements that stick out). Every distinct page is saved as a screenshot at
// 1280 and 360 pixels wide, and at 360 in dark mode.
//
// scripts/browser-test.sh starts Folio and runs this with:
//   BASE            the server's URL, e.g. http://127.0.0.1:41234
//   ADMIN_USER      the administrator's username
//   ADMIN_PASSWORD  and password
//   USER_NAME       a seeded account with the role user
//   USER_PASSWORD   and its password
//   SHOTS           the folder for screenshots
//   CONSOLE_STEPS   optional: the steps to run, by letter ("a,b,c"); later
//                   steps build on earlier ones (c needs b's uploads)
import { chromium } from "playwright-core";
import { createHmac } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";

const env = (name) => {
  const v = process.env[name];
  if (!v) {
    console.error(`console.mjs: the environment variable ${name} is required`);
    process.exit(2);
  }
  return v;
};
const BASE = env("BASE").replace(/\/+$/, "");
const ADMIN_USER = env("ADMIN_USER");
const ADMIN_PASSWORD = env("ADMIN_PASSWORD");
const USER_NAME = env("USER_NAME");
const USER_PASSWORD = env("USER_PASSWORD");
const SHOTS = env("SHOTS");
mkdirSync(SHOTS, { recursive: true });
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

const require = createRequire(import.meta.url);
// The WordPress export step j imports (a file of the Go tests' fixtures).
const IMPORT_SAMPLE = fileURLToPath(new URL("../../testdata/import/console/wordpress-small.xml", import.meta.url));
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

// Generous: the CI machine has two cores and runs the Go tests beside us.
const WAIT = 20_000;

// ---------------------------------------------------------------------------
// Failures and the step log

class StepFailure extends Error {}

let currentStep = "(start)";
const summary = [];

function fail(message) {
  throw new StepFailure(`${currentStep}: ${message}`);
}

function check(cond, message) {
  if (!cond) fail(message);
}

// ---------------------------------------------------------------------------
// The harness: every page we open is watched.

// Allowances a step declares for the HTTP errors and aborted requests it
// provokes on purpose; they end with the step.
let allowances = [];

function allow({ status, url, failure }) {
  allowances.push({ status, url, failure });
}

function allowed(kind, url, value) {
  return allowances.some((a) => (a.url ? a.url.test(url) : true) &&
    (kind === "status" ? a.status === value : a.failure && a.failure.test(value)));
}

const problems = [];

function watch(page, who) {
  page.on("console", (msg) => {
    const type = msg.type();
    const text = msg.text();
    if (/Content.Security.Policy/i.test(text)) {
      problems.push(`${who}: CSP message in the console on ${page.url()}: ${text}`);
      return;
    }
    if (type !== "error" && type !== "warning") return;
    // Chromium logs a failed subresource as a console error too; the
    // response check below has already judged it.
    const m = /status of (\d{3})/.exec(text);
    if (m && /Failed to load resource/.test(text) && allowed("status", msg.location()?.url || "", Number(m[1]))) return;
    const loc = msg.location();
    problems.push(`${who}: console ${type} on ${page.url()}: ${text}${loc?.url ? ` (${loc.url}:${loc.lineNumber})` : ""}`);
  });
  page.on("pageerror", (err) => problems.push(`${who}: uncaught exception on ${page.url()}: ${err.message}`));
  page.on("requestfailed", (req) => {
    const failure = req.failure()?.errorText || "unknown";
    if (allowed("failure", req.url(), failure)) return;
    // Chromium cancels a page's icon fetch when the page moves on before it
    // arrives; that is no fault of the page.
    if (req.resourceType() !== "document" && /\/favicon\.[0-9a-f]+\.svg$/.test(req.url()) && /ERR_ABORTED/.test(failure)) return;
    problems.push(`${who}: request failed: ${req.method()} ${req.url()}: ${failure}`);
  });
  page.on("response", (res) => {
    const status = res.status();
    if (status < 400 || allowed("status", res.url(), status)) return;
    problems.push(`${who}: HTTP ${status} for ${res.request().method()} ${res.url()}`);
  });
  page.on("dialog", (d) => d.accept().catch(() => {}));
}

async function newContext(browser, who) {
  const context = await browser.newContext({
    baseURL: BASE,
    viewport: { width: 1280, height: 900 },
    colorScheme: "light",
    acceptDownloads: true,
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: BASE });
  // Violations are reported to Node at once (a page that navigates away
  // would lose them) and kept on window for a look in the devtools.
  await context.exposeBinding("__folioReportCSP", (_src, v) => {
    problems.push(`${who}: CSP violation on ${v.documentURI}: ${v.effectiveDirective} blocked ${v.blockedURI || "(inline)"}` +
      `${v.sourceFile ? ` at ${v.sourceFile}:${v.lineNumber}` : ""} ${v.sample ? `sample: ${v.sample}` : ""}`);
  });
  await context.addInitScript(() => {
    window.__folioCSP = [];
    document.addEventListener("securitypolicyviolation", (e) => {
      const v = {
        documentURI: e.documentURI, effectiveDirective: e.effectiveDirective, blockedURI: e.blockedURI,
        sourceFile: e.sourceFile, lineNumber: e.lineNumber, sample: e.sample,
      };
      window.__folioCSP.push(v);
      window.__folioReportCSP?.(v);
    });
  });
  context.setDefaultTimeout(WAIT);
  context.setDefaultNavigationTimeout(WAIT * 2);
  const page = await context.newPage();
  watch(page, who);
  return { context, page, who };
}

// settle waits for the page to be loaded and quiet, then fails on whatever
// the watchers collected.
async function settle(page) {
  await page.waitForLoadState("load");
  await page.waitForLoadState("networkidle").catch(() => {});
  // The CSP event is async; one frame lets it arrive.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))).catch(() => {});
  if (problems.length) fail(`the browser reported problems:\n  - ${problems.join("\n  - ")}`);
}

// axe runs axe-core on the page in light and dark mode and fails on
// serious and critical violations.
async function axe(page, name) {
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme });
    // Not addScriptTag: the CSP forbids it, rightly.
    const has = await page.evaluate(() => typeof window.axe === "object");
    if (!has) await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ["violations"] });
      return r.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
        nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary, html: n.html })),
      }));
    });
    const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    if (bad.length) {
      const lines = bad.map((v) => `[${v.impact}] ${v.id}: ${v.help}\n` +
        v.nodes.slice(0, 5).map((n) => `      at ${n.target}: ${n.html.slice(0, 160)}\n        ${(n.summary || "").replace(/\n/g, "\n        ")}`).join("\n") +
        (v.nodes.length > 5 ? `\n      … and ${v.nodes.length - 5} more` : ""));
      fail(`axe-core found accessibility violations on ${name} (${page.url()}, ${scheme} mode):\n    ${lines.join("\n    ")}`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
}

const shotNames = new Set();

// shoot saves a full-page screenshot taken from the top of the page: the
// navigation column is sticky, and a page photographed scrolled down would
// show it halfway down the picture. The scroll position is put back.
async function shoot(page, file) {
  const y = await page.evaluate(() => { const y = window.scrollY; window.scrollTo(0, 0); return y; });
  await page.screenshot({ path: file, fullPage: true });
  await page.evaluate((y) => window.scrollTo(0, y), y);
}

// look checks a page a person sees: quiet, accessible, no wider than a
// phone's screen at the phone's width, and photographed at desktop and
// phone widths (once per name).
async function look(page, name) {
  await settle(page);
  await axe(page, name);
  const title = await page.title();
  check(title.trim() !== "", `${name} has no <title>`);
  const h1 = await page.locator("h1").count();
  check(h1 === 1, `${name} has ${h1} <h1> elements; a page has exactly one`);
  const first = !shotNames.has(name);
  shotNames.add(name);
  if (first) await shoot(page, join(SHOTS, `${name}-1280.png`));
  const size = page.viewportSize();
  await page.setViewportSize({ width: PHONE, height: 780 });
  try {
    if (first) {
      await shoot(page, join(SHOTS, `${name}-${PHONE}.png`));
      await page.emulateMedia({ colorScheme: "dark" });
      await shoot(page, join(SHOTS, `${name}-${PHONE}-dark.png`));
      await page.emulateMedia({ colorScheme: "light" });
    }
    await fitsPhone(page, name);
  } finally {
    await page.setViewportSize(size);
  }
  await settle(page);
}

// The narrowest phone the console is made for, in CSS pixels.
const PHONE = 360;

// fitsPhone fails when the page, at the phone's width, is wider than the
// screen (it would scroll sideways), naming the elements that stick out
// furthest, the widest first.
async function fitsPhone(page, name) {
  // One frame for the layout at the new width.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  const res = await page.evaluate(() => {
    const vw = window.innerWidth;
    const sw = document.documentElement.scrollWidth;
    if (sw <= vw) return { vw, sw, worst: [] };
    const describe = (el) => {
      let s = el.tagName.toLowerCase();
      if (el.id) s += `#${el.id}`;
      else if (el.classList.length) s += "." + [...el.classList].join(".");
      const p = el.parentElement;
      if (p && p !== document.body) s = `${p.tagName.toLowerCase()}${p.id ? "#" + p.id : p.classList.length ? "." + [...p.classList].join(".") : ""} > ${s}`;
      return s;
    };
    const out = [];
    for (const el of document.body.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.right > vw + 0.5) out.push({ what: describe(el), right: Math.round(r.right), width: Math.round(r.width),
        text: (el.textContent || "").trim().slice(0, 40) });
    }
    // The deepest offenders say most; keep those whose children all fit.
    out.sort((a, b) => b.right - a.right || a.width - b.width);
    return { vw, sw, worst: out.slice(0, 6) };
  });
  check(res.sw <= res.vw, `${name} is ${res.sw} px wide at a ${res.vw} px wide viewport (it scrolls sideways); ` +
    `sticking out furthest:\n    ${res.worst.map((w) => `${w.what} (right edge ${w.right} px, ${w.width} px wide${w.text ? `, "${w.text}"` : ""})`).join("\n    ")}`);
}

// ---------------------------------------------------------------------------
// Small helpers that name the step and the selector when they fail.

async function need(page, selector, what = selector) {
  try {
    await page.waitForSelector(selector, { state: "attached", timeout: WAIT });
  } catch {
    fail(`${page.url()} lacks ${what} (selector ${selector}) after ${WAIT / 1000} s`);
  }
  return page.locator(selector).first();
}

async function go(page, path) {
  const res = await page.goto(path, { waitUntil: "load" });
  check(res, `no response for ${path}`);
  check(res.status() < 400 || allowed("status", res.url(), res.status()), `GET ${path} answered ${res.status()}`);
  return res;
}

// submit clicks the submit button of a form (or the button itself) and
// waits for the page it leads to.
async function submit(page, selector) {
  const el = await need(page, selector);
  const tag = await el.evaluate((e) => e.tagName);
  const button = tag === "FORM"
    ? el.locator('button[type=submit], button:not([type]), input[type=submit]').first()
    : el;
  if ((await button.count()) === 0) fail(`${selector} has no submit button`);
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), button.click()]);
}

async function valueOf(page, selector) {
  const el = await need(page, selector);
  return (await el.evaluate((e) => ("value" in e && e.tagName !== "LI" ? e.value : e.textContent))).trim();
}

async function flash(page) {
  await need(page, "p.flash", "the flash message (p.flash)");
  return (await page.locator("p.flash").first().textContent()).trim();
}

const reEscape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

async function path(page) {
  return new URL(page.url()).pathname;
}

// ---------------------------------------------------------------------------
// Test data made here: small images, a TOTP code.

function crc32(buf) {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

// png draws a w×h RGB gradient tinted by seed, so each file is distinct.
function png(w, h, seed) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = Buffer.alloc(h * (1 + w * 3));
  for (let y = 0; y < h; y++) {
    raw[y * (1 + w * 3)] = 0;
    for (let x = 0; x < w; x++) {
      const o = y * (1 + w * 3) + 1 + x * 3;
      raw[o] = (x * 5 + seed * 70) & 255;
      raw[o + 1] = (y * 7 + seed * 30) & 255;
      raw[o + 2] = (160 + seed * 40) & 255;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0)),
  ]);
}

// A 48×32 JPEG and a 24×24 GIF, encoded once with Go's image/jpeg and
// image/gif (Node has no encoder for either).
const JPEG = Buffer.from("/9j/2wCEAA0JCgsKCA0LCgsODg0PEyAVExISEyccHhcgLikxMC4pLSwzOko+MzZGNywtQFdBRkxOUlNSMj5aYVpQYEpRUk8BDg4OExETJhUVJk81LTVPT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT//AABEIACAAMAMBIgACEQEDEQH/xAGiAAABBQEBAQEBAQAAAAAAAAAAAQIDBAUGBwgJCgsQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNicoIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+gEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoLEQACAQIEBAMEBwUEBAABAncAAQIDEQQFITEGEkFRB2FxEyIygQgUQpGhscEJIzNS8BVictEKFiQ04SXxFxgZGiYnKCkqNTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqCg4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2dri4+Tl5ufo6ery8/T19vf4+fr/2gAMAwEAAhEDEQA/AM5Y6mWOpVjqZY69yUzzaVQiWOpVjqZY6mWOsZTPSpVCFY6mWOpljqZY6wlM9OlUM1Y6mWOpVjqZY6cpnxdKoRLHUyx1KsdTLHWEpnpUqhCsdTLHUyx1MsdYymelSqH/2Q==", "base64");
const GIF = Buffer.from("R0lGODlhGAAYAIcAAAAAAAAARAAAiAAAzABEAABERABEiABEzACIAACIRACIiACIzADMAADMRADMiADMzADd3REREQAAVQAAmQAA3QBVAABVVQBMmQBJ3QCZAACZTACZmQCT3QDdAADdSQDdkwDungDu7iIiIgAAZgAAqgAA7gBmAABmZgBVqgBP7gCqAACqVQCqqgCe7gDuAADuTwD/VQD/qgD//zMzMwAAdwAAuwAA/wB3AAB3dwBduwBV/wC7AAC7XQC7uwCq/wD/AEQAREQAiEQAzEREAEREREREiEREzESIAESIRESIiESIzETMAETMRETMiETMzEQAAFUAAFUAVUwAmUkA3VVVAFVVVUxMmUlJ3UyZAEyZTEyZmUmT3UndAEndSUndk0nd3U/u7mYAAGYAZlUAqk8A7mZmAGZmZlVVqk9P7lWqAFWqVVWqqk+e7k/uAE/uT0/unlX/qlX//3cAAHcAd10Au1UA/3d3AHd3d11du1VV/127AF27XV27u1Wq/1X/AFX/VYgAiIgAzIhEAIhERIhEiIhEzIiIAIiIRIiIiIiIzIjMAIjMRIjMiIjMzIgAAIgARJkATJkAmZMA3ZlMAJlMTJlMmZNJ3ZmZAJmZTJmZmZOT3ZPdAJPdSZPdk5Pd3ZkAAKoAAKoAVaoAqp4A7qpVAKpVVapVqp5P7qqqAKqqVaqqqp6e7p7uAJ7uT57unp7u7qr//7sAALsAXbsAu6oA/7tdALtdXbtdu6pV/7u7ALu7Xbu7u6qq/6r/AKr/Var/qswAzMxEAMxERMxEiMxEzMyIAMyIRMyIiMyIzMzMAMzMRMzMiMzMzMwAAMwARMwAiN0Ak90A3d1JAN1JSd1Jk91J3d2TAN2TSd2Tk92T3d3dAN3dSd3dk93d3d0AAN0ASe4AT+4Anu4A7u5PAO5PT+5Pnu5P7u6eAO6eT+6enu6e7u7uAO7uT+7unu7u7u4AAP8AAP8AVf8Aqv8A//9VAP9VVf9Vqv9V//+qAP+qVf+qqv+q////AP//Vf//qv///ywAAAAAGAAYAAAIbgDPCRwooaDBgQQNFkQoUOFChg4lMDwXcWJFiA4tZsSoUGNHjgdBRnyI8GLJjSc/pgy5kmRClS9ZxnTZEOVMiSJxTmyp86ZHmTVhBgVK0eZQmkWFJiVq0mfOpkd7Rv2JFOrSqkavStVKdatVqwEBADs=", "base64");

const DROPPED = [
  { name: "sunrise-meadow.png", type: "image/png", bytes: png(64, 40, 1) },
  { name: "harbour-lights.jpg", type: "image/jpeg", bytes: JPEG },
  { name: "lantern-pattern.gif", type: "image/gif", bytes: GIF },
];
const PASTED = { name: "pasted-screenshot.png", type: "image/png", bytes: png(80, 50, 3) };

function base32Decode(s) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0, value = 0;
  const out = [];
  for (const ch of s.replace(/[\s=-]/g, "").toUpperCase()) {
    const i = alphabet.indexOf(ch);
    if (i < 0) throw new Error(`not base32: ${ch}`);
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

// totp is RFC 6238 with SHA-1, 30-second steps and 6 digits.
function totp(secret, step) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", base32Decode(secret)).update(counter).digest();
  const o = mac[mac.length - 1] & 15;
  const n = ((mac[o] & 0x7f) << 24) | (mac[o + 1] << 16) | (mac[o + 2] << 8) | mac[o + 3];
  return String(n % 1_000_000).padStart(6, "0");
}

const totpStep = () => Math.floor(Date.now() / 30_000);

// apiUpload sends a file to the Lsky upload endpoint as a client would.
async function apiUpload(token, file) {
  const form = new FormData();
  form.append("file", new Blob([file.bytes], { type: file.type }), file.name);
  const res = await fetch(`${BASE}/api/v1/upload`, { method: "POST", body: form, headers: { Authorization: `Bearer ${token}` } });
  let body = null;
  try { body = await res.json(); } catch { /* judged by the caller */ }
  return { status: res.status, body };
}

// ---------------------------------------------------------------------------
// The steps, in the order a new user meets the console.

const state = {};

async function signIn(page, username, password) {
  await go(page, "/console/login");
  await (await need(page, "#login", "the username field #login")).fill(username);
  await (await need(page, "#password", "the password field #password")).fill(password);
  await submit(page, 'form[action="/console/login"]');
  // The administrator lands on the dashboard, whose thumbnails a step
  // going straight on would cut off (a failed request). Not settle():
  // its frame wait never ends on a page without JavaScript.
  await page.waitForLoadState("networkidle").catch(() => {});
}

async function stepSignIn(u) {
  await go(u.page, "/console/login");
  await need(u.page, '#login[name="username"]', "the username field #login[name=username]");
  await look(u.page, "login");
  await signIn(u.page, USER_NAME, USER_PASSWORD);
  check((await path(u.page)) === "/console/upload", `signing in led to ${u.page.url()}, not /console/upload`);
  await look(u.page, "upload");
}

async function stepUpload(u) {
  const page = u.page;
  await need(page, "#dropzone", "the drop zone #dropzone");
  // Progress bars may come and go within a blink, so the page remembers
  // every upload item that ever held one.
  await page.evaluate(() => {
    window.__sawProgress = new WeakSet();
    const mark = () => {
      for (const li of document.querySelectorAll("#upload-queue li.upload-item")) {
        if (li.querySelector("progress.upload-progress")) window.__sawProgress.add(li);
      }
    };
    new MutationObserver((records) => {
      for (const r of records) {
        for (const n of r.addedNodes) {
          if (n.nodeType !== 1) continue;
          const li = n.closest?.("li.upload-item") || (r.target.closest?.("li.upload-item"));
          if (li && (n.matches("progress.upload-progress") || n.querySelector("progress.upload-progress"))) window.__sawProgress.add(li);
        }
      }
      mark();
    }).observe(document.body, { childList: true, subtree: true });
    window.__markProgress = mark;
  });
  const asArgs = (files) => files.map((f) => ({ name: f.name, type: f.type, b64: f.bytes.toString("base64") }));
  const dropped = await page.evaluate((files) => {
    const dt = new DataTransfer();
    for (const f of files) {
      const bin = atob(f.b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], f.name, { type: f.type }));
    }
    const zone = document.querySelector("#dropzone");
    const results = {};
    for (const type of ["dragenter", "dragover", "drop"]) {
      const ev = new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt });
      zone.dispatchEvent(ev);
      results[type] = ev.defaultPrevented;
    }
    window.__markProgress();
    return results;
  }, asArgs(DROPPED));
  check(dropped.dragover && dropped.drop, `#dropzone must cancel dragover and drop (preventDefault), got ${JSON.stringify(dropped)}`);
  await waitUploads(page, DROPPED.length);

  await page.evaluate((f) => {
    const bin = atob(f.b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], f.name, { type: f.type }));
    document.dispatchEvent(new ClipboardEvent("paste", { bubbles: true, cancelable: true, clipboardData: dt }));
    window.__markProgress();
  }, asArgs([PASTED])[0]);
  await waitUploads(page, DROPPED.length + 1);

  const items = await page.evaluate(() => [...document.querySelectorAll("#upload-queue li.upload-item")].map((li) => ({
    text: li.textContent.replace(/\s+/g, " ").trim().slice(0, 120),
    progress: window.__sawProgress.has(li),
    // Each row carries every format's link; its one field shows the
    // format picked (docs/console.md#uploading).
    formats: ["url", "markdown", "html", "bbcode", "thumbnail"].map((f) => [f, li.dataset[f] || ""]),
    fields: li.querySelectorAll(".upload-status input[data-format]").length,
  })));
  for (const it of items) {
    check(it.progress, `the upload item "${it.text}" never showed a progress.upload-progress`);
    check(it.fields === 1, `the upload item "${it.text}" has ${it.fields} link fields, not one`);
    const formats = Object.fromEntries(it.formats);
    for (const f of ["url", "markdown", "html", "bbcode", "thumbnail"]) {
      check(formats[f], `the upload item "${it.text}" has no data-${f} link`);
    }
    check(/^https?:\/\//.test(formats.url), `the url of "${it.text}" is not a URL: ${formats.url}`);
  }
  for (const f of [...DROPPED, PASTED]) {
    check(items.some((it) => it.formats.some(([, v]) => v.includes(f.name)) || it.text.includes(f.name)),
      `no upload item names ${f.name}`);
  }

  // Copy the Markdown of the first file with its button.
  await page.locator("#upload-format").selectOption("markdown");
  const md = page.locator("#upload-queue li.upload-item").first().locator('.upload-status input[data-format="markdown"]');
  const expected = await md.inputValue();
  const id = await md.getAttribute("id");
  let button = id ? page.locator(`button[data-copy="${id}"]`) : null;
  if (!button || (await button.count()) === 0) button = md.locator("xpath=..").locator("button");
  check((await button.count()) > 0, "no copy button next to the markdown field");
  await page.evaluate(() => navigator.clipboard.writeText(""));
  await button.first().click();
  let copied = "";
  for (let i = 0; i < 50 && copied !== expected; i++) {
    copied = await page.evaluate(() => navigator.clipboard.readText());
    if (copied !== expected) await page.waitForTimeout(100);
  }
  check(copied === expected, `the copy button put ${JSON.stringify(copied)} on the clipboard, not ${JSON.stringify(expected)}`);
  check(/^!\[[^\]]*\]\(https?:\/\/[^)\s]+\)$/.test(copied), `the copied markdown does not look like ![name](http…): ${copied}`);
  await look(page, "upload-done");
}

async function waitUploads(page, n) {
  try {
    await page.waitForFunction((n) => {
      const items = [...document.querySelectorAll("#upload-queue li.upload-item")];
      if (items.some((li) => li.dataset.state === "error")) return true;
      return items.length >= n && items.every((li) => li.dataset.state === "done");
    }, n, { timeout: WAIT * 2 });
  } catch {
    const states = await page.evaluate(() => [...document.querySelectorAll("#upload-queue li.upload-item")].map((li) => li.dataset.state));
    fail(`waited for ${n} #upload-queue li.upload-item[data-state=done]; have ${JSON.stringify(states)}`);
  }
  const errors = await page.evaluate(() => [...document.querySelectorAll('#upload-queue li.upload-item[data-state="error"]')].map((li) => li.textContent.replace(/\s+/g, " ").trim()));
  check(errors.length === 0, `uploads failed: ${errors.join("; ")}`);
  await settle(page);
}

async function cards(page) {
  return page.evaluate(() => [...document.querySelectorAll("li.file-card")].map((li) => ({
    text: li.textContent.replace(/\s+/g, " ").trim(),
    id: li.querySelector("input[name=ids]")?.value || "",
    href: li.querySelector('a[href^="/console/files/"]')?.getAttribute("href") || "",
  })));
}

async function filter(page, fill) {
  const form = page.locator("form:has(#filter-q)").first();
  await need(page, "form:has(#filter-q)", "the filter form (a form holding #filter-q)");
  await fill();
  const button = form.locator('button[type=submit], button:not([type]), input[type=submit]');
  if ((await button.count()) > 0) {
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), button.first().click()]);
  } else {
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.locator("#filter-q").press("Enter")]);
  }
  await settle(page);
}

async function stepFiles(u) {
  const page = u.page;
  // An album first, to move a file into.
  await go(page, "/console/albums");
  await need(page, "#album-create", "the new-album form #album-create");
  await look(page, "albums-empty");
  await page.locator('#album-create [name="name"]').fill("Seaside trip");
  await submit(page, "#album-create");
  await flash(page);
  if ((await path(page)) !== "/console/albums") await look(page, "album");
  await go(page, "/console/albums");
  check((await page.locator("main").textContent()).includes("Seaside trip"), "the new album is not listed on /console/albums");
  await look(page, "albums");

  await go(page, "/console/files");
  await need(page, "li.file-card", "a file card (li.file-card)");
  await look(page, "files");
  const all = await cards(page);
  check(all.length >= 4, `/console/files shows ${all.length} cards, expected the 4 uploads`);

  await filter(page, () => page.locator("#filter-q").fill("harbour"));
  let shown = await cards(page);
  check(shown.length === 1 && shown[0].text.includes("harbour"),
    `filtering by "harbour" shows ${shown.length} cards: ${shown.map((c) => c.text).join(" | ")}`);
  await look(page, "files-filtered");

  // By type: images keep every card; another type shows none of ours.
  const options = await page.locator("#filter-type option").evaluateAll((os) => os.map((o) => ({ value: o.value, label: o.textContent.trim() })));
  check(options.length > 1, "#filter-type offers no types");
  const image = options.find((o) => /image/i.test(o.value + o.label));
  check(image, `#filter-type has no option for images: ${JSON.stringify(options)}`);
  await filter(page, async () => {
    await page.locator("#filter-q").fill("");
    await page.locator("#filter-type").selectOption(image.value);
  });
  shown = await cards(page);
  check(shown.length === all.length, `filtering by type ${image.value} shows ${shown.length} cards, expected ${all.length}`);
  const other = options.find((o) => o.value && !/image/i.test(o.value + o.label));
  if (other) {
    await filter(page, () => page.locator("#filter-type").selectOption(other.value));
    shown = await cards(page);
    check(shown.length === 0, `filtering by type ${other.value} shows our images: ${shown.map((c) => c.text).join(" | ")}`);
    await need(page, "p.empty", "the empty state p.empty");
    await look(page, "files-empty");
  }

  // Detail: rename and move into the album.
  const harbour = all.find((c) => c.text.includes("harbour"));
  check(harbour?.href, "the harbour card has no link to /console/files/{id}");
  await go(page, harbour.href);
  await need(page, "#file-edit", "the edit form #file-edit");
  await look(page, "file-detail");
  await page.locator("#file-edit #edit-name").fill("harbour-at-night.jpg");
  const albumValue = await page.locator("#edit-album option").evaluateAll((os) => os.find((o) => o.textContent.includes("Seaside trip"))?.value);
  check(albumValue, "#edit-album has no option for the album Seaside trip");
  await page.locator("#edit-album").selectOption(albumValue);
  await submit(page, "#file-edit");
  await flash(page);
  check((await page.locator("#edit-name").inputValue()) === "harbour-at-night.jpg", "the new name was not kept");
  check((await page.locator("#edit-album").inputValue()) === albumValue, "the album was not kept");
  await look(page, "file-detail-saved");
  state.keptFile = harbour;

  // Delete two others at once.
  await go(page, "/console/files");
  await need(page, "li.file-card input[name=ids]", "a selection box li.file-card input[name=ids]");
  const victims = (await cards(page)).filter((c) => c.id && !c.text.includes("harbour")).slice(0, 2);
  check(victims.length === 2, "fewer than two other cards to delete");
  for (const v of victims) await page.locator(`li.file-card input[name=ids][value="${v.id}"]`).check();
  await submit(page, "#delete-selected");
  await settle(page);
  const left = await cards(page);
  for (const v of victims) check(!left.some((c) => c.id === v.id), `the deleted file ${v.text} is still listed`);
  check(left.length === all.length - 2, `after deleting two of ${all.length} files, ${left.length} are listed`);
  await look(page, "files-after-delete");
}

// stepShare shares the file kept by step c with a password and a view
// limit, opens the link in a browser that is not signed in (password form,
// a wrong answer, the right one, the picture), revokes it, and sees the
// 404 pages a browser gets for a dead share link and a missing short link.
async function stepShare(browser, u) {
  const page = u.page;
  check(state.keptFile?.href, "step c kept no file to share");
  await go(page, state.keptFile.href);
  await need(page, "#share-create", "the share form #share-create");
  await page.locator("#share-expires").selectOption("86400");
  await page.locator("#share-views").fill("5");
  await page.locator("#share-password").fill("open sesame");
  await submit(page, "#share-create");
  check((await flash(page)).includes("Share link created"), "no confirmation of the new share link");
  const url = await valueOf(page, "#share-1");
  check(/\/s\/[A-Za-z0-9_-]{32}$/.test(url), `#share-1 holds ${url}, not a share link`);
  await look(page, "file-shared");

  const v = await newContext(browser, "visitor");
  try {
    await go(v.page, url);
    await need(v.page, "#share-password", "the password field #share-password");
    await look(v.page, "share-password");
    allow({ status: 401, url: new RegExp(`^${reEscape(url)}$`) });
    await v.page.locator("#share-password").fill("not it");
    await submit(v.page, "form");
    await need(v.page, "p.error", "the wrong-password message p.error");
    await v.page.locator("#share-password").fill("open sesame");
    await submit(v.page, "form");
    const img = await need(v.page, "img.media", "the shared picture img.media");
    await v.page.waitForFunction(() => document.querySelector("img.media")?.complete);
    check((await img.evaluate((i) => i.naturalWidth)) > 0, "the shared picture did not load");
    const og = await v.page.locator('meta[property="og:image"]').getAttribute("content");
    check(og && og.startsWith(BASE + "/s/raw/"), `og:image is ${og}`);
    await look(v.page, "share");

    await go(page, state.keptFile.href);
    await submit(page, "li form[data-confirm]");
    check((await flash(page)).includes("revoked"), "no confirmation of the revocation");
    allow({ status: 404 });
    await go(v.page, url);
    await need(v.page, "h1", "the 404 page");
    check((await v.page.locator("h1").textContent()).includes("Not found"), "a revoked link does not say Not found");
    await look(v.page, "share-404");
    await go(v.page, "/i/0123456789abcdef");
    check((await v.page.locator("h1").textContent()).includes("Not found"), "a missing short link does not show the 404 page");
    await look(v.page, "link-404");
  } finally {
    await v.context.close();
  }
}

async function stepTokens(u) {
  const page = u.page;
  const name = "browser-sharex";
  await go(page, "/console/tokens");
  await need(page, "#token-create", "the new-token form #token-create");
  await look(page, "tokens");
  await page.locator("#token-name").fill(name);
  await submit(page, "#token-create");
  const token = await valueOf(page, "#token-value");
  check(token.startsWith("folio_"), `#token-value does not start with folio_: ${token}`);
  await look(page, "token-created");

  const dl = await need(page, "#download-sxcu", "the ShareX download #download-sxcu");
  const tag = await dl.evaluate((e) => e.tagName);
  const clickable = tag === "FORM" ? dl.locator('button[type=submit], button:not([type]), input[type=submit]').first() : dl;
  // A download ends the navigation that brought it; Chromium calls that
  // aborted.
  // A button's formAction is the page's own URL when it has no formaction
  // attribute: ask for the attribute, then the form.
  const action = await clickable.evaluate((b) => new URL(b.getAttribute("formaction") || b.form?.action || b.href || location.href, location.href).pathname);
  allow({ failure: /ERR_ABORTED/, url: new RegExp(`^${reEscape(BASE + action)}(\\?|$)`) });
  const [download] = await Promise.all([page.waitForEvent("download"), clickable.click()]);
  const file = await download.path();
  check(file, `the download failed: ${await download.failure()}`);
  check(/\.sxcu$/.test(download.suggestedFilename()), `the download is named ${download.suggestedFilename()}, not *.sxcu`);
  let sxcu;
  try { sxcu = JSON.parse(readFileSync(file, "utf8")); } catch (e) { fail(`the .sxcu is not JSON: ${e.message}`); }
  check(sxcu.RequestURL === `${BASE}/api/v1/upload`, `.sxcu RequestURL is ${sxcu.RequestURL}, not ${BASE}/api/v1/upload`);
  check(sxcu.Headers?.Authorization === `Bearer ${token}`, `.sxcu Authorization is ${sxcu.Headers?.Authorization}`);
  await settle(page);

  let res = await apiUpload(token, { name: "via-token.png", type: "image/png", bytes: png(30, 30, 5) });
  check(res.status === 200 && res.body?.status === true, `an upload with the new token answered ${res.status} ${JSON.stringify(res.body)}`);

  await go(page, "/console/tokens");
  const row = await need(page, `tr[data-token="${name}"]`, `the token's row tr[data-token="${name}"]`);
  check((await row.locator("form.token-revoke").count()) === 1, `the row of ${name} has no form.token-revoke`);
  await submit(page, `tr[data-token="${name}"] form.token-revoke`);
  await settle(page);
  res = await apiUpload(token, { name: "via-revoked.png", type: "image/png", bytes: png(30, 30, 6) });
  check(res.status === 401, `an upload with the revoked token answered ${res.status}, not 401`);
  await look(page, "tokens-after-revoke");
}

async function stepTOTP(u) {
  const page = u.page;
  await go(page, "/console/account");
  await need(page, "#totp-begin", "the two-factor start form #totp-begin");
  await look(page, "account");
  await submit(page, "#totp-begin");
  await need(page, "#totp-qr svg", "the QR code #totp-qr svg");
  const secret = (await valueOf(page, "#totp-secret")).replace(/\s+/g, "").toUpperCase();
  check(/^[A-Z2-7]{16,}=*$/.test(secret), `#totp-secret is not base32: ${secret}`);
  await look(page, "totp-setup");

  // The QR code as a camera would see it: a screenshot, with a quiet
  // margin, read by zbarimg.
  const qr = page.locator("#totp-qr");
  await qr.scrollIntoViewIfNeeded();
  const box = await qr.boundingBox();
  check(box && box.width > 20, "#totp-qr has no size");
  const dir = mkdtempSync(join(tmpdir(), "folio-qr-"));
  const img = join(dir, "qr.png");
  writeFileSync(join(SHOTS, "totp-qr.png"), await qr.screenshot());
  const m = 24;
  await page.screenshot({ path: img, clip: { x: Math.max(0, box.x - m), y: Math.max(0, box.y - m), width: box.width + 2 * m, height: box.height + 2 * m } });
  let uri = "";
  try {
    uri = execFileSync("zbarimg", ["--raw", "-q", img], { encoding: "utf8" }).trim();
  } catch (e) {
    fail(`zbarimg could not read the QR code (kept as ${join(SHOTS, "totp-qr.png")}): ${e.message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  check(uri.startsWith("otpauth://totp/"), `the QR code holds ${uri}, not an otpauth://totp/ URI`);
  check(new URL(uri).searchParams.get("secret")?.toUpperCase() === secret.replace(/=+$/, ""),
    `the QR code's secret differs from #totp-secret: ${uri}`);

  state.usedStep = totpStep();
  await page.locator("#totp-code").fill(totp(secret, state.usedStep));
  await submit(page, "#totp-enable");
  await need(page, "#recovery-codes li", "the recovery codes #recovery-codes li");
  const codes = await page.locator("#recovery-codes li").count();
  check(codes === 10, `${codes} recovery codes are shown, not 10`);
  await look(page, "totp-enabled");

  // Sign out and in again: now the code is asked for.
  await submit(page, 'form[action="/console/logout"]');
  check((await path(page)) === "/console/login", `signing out led to ${page.url()}`);
  await look(page, "signed-out");
  await signIn(page, USER_NAME, USER_PASSWORD);
  await need(page, '#code', "the code field #code");
  await need(page, 'form[action="/console/login/code"]', 'the code form form[action="/console/login/code"]');
  await look(page, "login-code");
  // A used step is refused (replay), so wait for the next one if needed.
  while (totpStep() <= state.usedStep) {
    const ms = (state.usedStep + 1) * 30_000 - Date.now() + 200;
    console.log(`   waiting ${Math.ceil(ms / 1000)} s for a fresh TOTP step`);
    await page.waitForTimeout(ms);
  }
  await page.locator("#code").fill(totp(secret, totpStep()));
  await submit(page, 'form[action="/console/login/code"]');
  check((await path(page)).startsWith("/console/") && !(await path(page)).startsWith("/console/login"),
    `the code did not sign in: at ${page.url()}`);
  await look(page, "signed-in-with-code");
}

async function stepAdmin(browser, u) {
  const a = await newContext(browser, "admin");
  state.admin = a;
  const page = a.page;
  await signIn(page, ADMIN_USER, ADMIN_PASSWORD);
  check(!(await path(page)).startsWith("/console/login"), `the administrator could not sign in: at ${page.url()}`);
  for (const [p, name, sel] of [
    ["/console/admin", "admin-dashboard", "main svg"],
    ["/console/admin/files", "admin-files", "main"],
    ["/console/admin/settings", "admin-settings", "main form"],
  ]) {
    await go(page, p);
    await need(page, sel, `${sel} on ${p}`);
    await look(page, name);
  }
  await go(page, "/console/admin/users");
  const link = await need(page, `tr[data-user="${USER_NAME}"] a`, `the user's row link tr[data-user="${USER_NAME}"] a`);
  await look(page, "admin-users");
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), link.click()]);
  await need(page, "#user-edit", "the user form #user-edit");
  await look(page, "admin-user");
  await page.locator("#user-status").selectOption("disabled");
  await submit(page, "#user-edit");
  await flash(page);
  await look(page, "admin-user-disabled");

  // The user's open browser loses its session.
  await go(u.page, "/console/files");
  check((await path(u.page)) === "/console/login", `the disabled user still sees ${u.page.url()}`);
  await settle(u.page);
}

// stepPreview: the administrator makes a preview link of a draft in the
// console, and a visitor with no cookies opens it (docs/console.md#preview-links).
async function stepPreview(browser) {
  if (!state.admin) {
    const a = await newContext(browser, "admin");
    state.admin = a;
    await signIn(a.page, ADMIN_USER, ADMIN_PASSWORD);
  }
  const page = state.admin.page;
  await go(page, "/console/tokens"); // any console page: the fetch below goes from its origin
  const title = `Browser preview draft ${Date.now()}`;
  const made = await page.evaluate(async (title) => {
    const r = await fetch("/api/v1/admin/posts", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ title, content_markdown: "A **draft** that only the link opens.", status: "draft" }),
    });
    return { status: r.status, body: await r.json() };
  }, title);
  check(made.status === 201, `creating the draft answered ${made.status}: ${JSON.stringify(made.body)}`);
  const id = made.body.data.id;

  await go(page, `/console/blog/posts/${id}/preview`);
  await need(page, "#preview-form", "the preview-link form #preview-form");
  await look(page, "blog-preview");
  await page.locator("#preview-hours").selectOption("24");
  await submit(page, "#preview-form");
  const url = await valueOf(page, "#preview-url");
  check(url.startsWith(BASE + "/preview/"), `#preview-url holds ${url}, not a preview link`);
  check((await page.locator("#preview-open").getAttribute("href")) === url, "Open preview does not lead to the link");
  await look(page, "blog-preview-made");

  const v = await newContext(browser, "visitor");
  try {
    await go(v.page, url);
    await need(v.page, "#preview-banner", "the preview banner #preview-banner");
    check((await v.page.locator("h1").textContent()).trim() === title, "the preview does not show the draft's title");
    check((await v.page.locator("#preview-banner").textContent()).includes("this post is not public"), "the banner does not say the post is not public");
    check((await v.page.locator("main strong").allTextContents()).includes("draft"), "the draft's content is missing");
    await look(v.page, "preview");
  } finally {
    await v.context.close();
  }
}

// stepBlogPost writes a post in the blog's editor as the administrator:
// the slug stays empty for the server to make, a pasted image is uploaded into the
// Markdown, the preview renders a table and a footnote, unsaved text
// survives a reload, a future date schedules the post, and a slug change
// saves. Its preview link is opened signed out while it is scheduled; after
// the slug change its old address answers 301, and the version before is
// restored. Leaves state.blogPost = {id, slug}.
async function stepBlogPost(browser) {
  if (!state.admin) {
    const a = await newContext(browser, "admin");
    state.admin = a;
    await signIn(a.page, ADMIN_USER, ADMIN_PASSWORD);
  }
  const page = state.admin.page;
  await go(page, "/console/blog/posts");
  await need(page, "#new-post", "the New post link #new-post");
  await look(page, "blog-posts");
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.locator("#new-post").click()]);
  check((await path(page)) === "/console/blog/posts/new", `New post led to ${page.url()}`);
  await need(page, "form[data-editor] #post-content", "the editor's textarea");
  await look(page, "blog-post-new");

  const title = `Tide Tables ${Date.now() % 100000}`;
  await page.locator("#post-title").pressSequentially(title);
  // The editor never fills the slug in; the server makes it from the title.
  check((await valueOf(page, "#post-slug")) === "", `the slug is "${await valueOf(page, "#post-slug")}" before any was typed`);

  const markdown = "Low and high water.[^1]\n\n| Port | Low | High |\n|---|---|---|\n| Brest | 06:10 | 12:25 |\n\n[^1]: Times are local.\n\n";
  const source = page.locator("#post-content");
  await source.click();
  await source.pressSequentially("Intro. ");
  await source.evaluate((el, md) => {
    el.setRangeText(md, el.value.length, el.value.length, "end");
    el.dispatchEvent(new Event("input", { bubbles: true }));
  }, markdown);
  await page.evaluate((f) => {
    const bin = atob(f.b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], f.name, { type: f.type }));
    const ta = document.querySelector("#post-content");
    ta.focus();
    ta.dispatchEvent(new ClipboardEvent("paste", { bubbles: true, cancelable: true, clipboardData: dt }));
  }, { name: "tide-chart.png", type: PASTED.type, b64: png(60, 40, 5).toString("base64") });
  await page.waitForFunction(() => /!\[[^\]]*\]\([^)]*\/i\/[^)]+\)/.test(document.querySelector("#post-content").value), null, { timeout: WAIT })
    .catch(() => fail("the pasted image's ![...](/i/...) never appeared in the Markdown"));
  await page.waitForFunction(() => {
    const p = document.querySelector("[data-md-preview]");
    return p.querySelector("table") && p.querySelector(".footnotes") && p.querySelector('img[src*="/i/"]');
  }, null, { timeout: WAIT }).catch(() => fail("the preview lacks the table, the footnote or the image"));
  check(/Preview updated/.test(await valueOf(page, "[data-md-status]")), "the preview status does not say Preview updated");
  const typed = await valueOf(page, "#post-content");

  // Unsaved text survives a reload.
  await page.waitForTimeout(700); // the draft is stored 400 ms after the last change
  await page.reload({ waitUntil: "load" });
  await need(page, ".draft-notice", "the restored-draft notice");
  check((await valueOf(page, "#post-content")) === typed, "the unsaved Markdown was not restored after a reload");
  check((await valueOf(page, "#post-title")) === title, "the unsaved title was not restored");
  await look(page, "blog-post-restored");

  // Published, a day ahead: scheduled.
  await page.locator("#post-status").selectOption("published");
  const pad = (n) => String(n).padStart(2, "0");
  const local = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  await page.locator("#post-published").fill(local(new Date(Date.now() + 24 * 3600 * 1000)));
  await submit(page, "#post-editor");
  check(/^\/console\/blog\/posts\/[0-9a-f-]{32,36}$/.test(await path(page)), `saving led to ${page.url()}`);
  check((await flash(page)) === "Post created.", "no Post created. flash");
  const id = (await path(page)).split("/").pop();
  const stored = await page.evaluate((k) => localStorage.getItem(k), "folio:draft:post:new");
  check(stored === null, "the new-post draft was not cleared after the save");
  await look(page, "blog-post-edit");

  await go(page, "/console/blog/posts?status=scheduled");
  await need(page, `tr[data-post="${id}"] .status-scheduled`, "the post listed as scheduled");

  // Its preview link, opened by someone signed out, shows the scheduled
  // post as the site will.
  await go(page, `/console/blog/posts/${id}/preview`);
  await submit(page, "#preview-form");
  const previewURL = await valueOf(page, "#preview-url");
  check(previewURL.startsWith(BASE + "/preview/"), `#preview-url holds ${previewURL}, not a preview link`);
  const reader = await newContext(browser, "reader");
  try {
    await go(reader.page, previewURL);
    check((await reader.page.locator("h1").first().textContent()).trim() === title, "the preview does not show the post's title");
    check(/scheduled/i.test(await reader.page.locator("#preview-banner").textContent()), "the preview banner does not say the post is scheduled");
    await need(reader.page, "main table", "the table in the preview");
    await need(reader.page, 'main img[src*="/i/"]', "the pasted image in the preview");
  } finally {
    await reader.context.close();
  }

  // Now: published and visible.
  await go(page, `/console/blog/posts/${id}`);
  await page.locator("#post-published").fill(local(new Date(Date.now() - 60 * 1000)));
  await submit(page, "#post-editor");
  check((await flash(page)) === "Saved.", "no Saved. flash");
  const slug = await valueOf(page, "#post-slug");
  await need(page, "#view-on-site", "the View on site link");
  await go(page, `/posts/${slug}`);
  await need(page, "article table, main table", "the table on the site's post");
  await settle(page);

  // A new slug and an added line: the old address answers 301.
  await go(page, `/console/blog/posts/${id}`);
  const newSlug = `${slug}-moved`;
  await page.locator("#post-slug").fill(newSlug);
  await page.locator("#post-content").evaluate((el) => {
    el.setRangeText("\n\nA line added with the new slug.\n", el.value.length, el.value.length, "end");
    el.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await submit(page, "#post-editor");
  check((await flash(page)) === "Saved.", "no Saved. flash after the slug change");
  check((await valueOf(page, "#post-slug")) === newSlug, "the slug was not saved");
  await go(page, `/posts/${slug}`);
  check((await path(page)) === `/posts/${newSlug}`, `the old slug led to ${page.url()}, not the new one`);
  await need(page, "text=A line added with the new slug.", "the added line on the post");

  // The version before: restored, slug and text; the slug it gives up
  // now leads back.
  await go(page, `/console/blog/posts/${id}/revisions`);
  const newest = page.locator("#revisions-table tbody tr:first-child a");
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), newest.click()]);
  await need(page, ".diff ins", "the added line in the diff");
  await submit(page, "#revision-restore");
  check((await path(page)) === `/console/blog/posts/${id}`, `the restore landed on ${page.url()}`);
  check(/^Restored the version of /.test(await flash(page)), "no Restored flash");
  check((await valueOf(page, "#post-slug")) === slug, "the restore did not bring the slug back");
  await go(page, `/posts/${newSlug}`);
  check((await path(page)) === `/posts/${slug}`, `/posts/${newSlug} led to ${page.url()} after the restore`);
  check(!(await page.content()).includes("A line added with the new slug."), "the restored post still has the added line");
  await settle(page);
  state.blogPost = { id, slug };
}

// stepEditor writes a post with the editor's toolbar and shortcuts: bold,
// italic, a heading (undone with Ctrl+Z and done again), a link, lists, a
// quote, inline code, a fenced Go block, an aligned table, an image
// uploaded from the toolbar's file picker, tags by comma and by paste. The
// preview shows the highlighted code and the right-aligned cell with no CSP
// violation; leaving asks first (beforeunload) and the text comes back;
// saving asks nothing; the published post shows the slug note, and the
// site shows the code highlighted and the cell aligned.
async function stepEditor(browser) {
  if (!state.admin) {
    const a = await newContext(browser, "admin");
    state.admin = a;
    await signIn(a.page, ADMIN_USER, ADMIN_PASSWORD);
  }
  const page = state.admin.page;
  await go(page, "/console/blog/posts/new");
  await need(page, '[role="toolbar"] button[data-md="bold"]', "the editor's toolbar");
  const toolbar = page.locator('[role="toolbar"]');
  for (const id of ["bold", "italic", "heading", "link", "bulleted", "numbered", "quote", "code", "codeblock", "image"]) {
    const b = toolbar.locator(`button[data-md="${id}"]`);
    check((await b.count()) === 1, `the toolbar lacks the ${id} button`);
    check((await b.getAttribute("type")) === "button" && !!(await b.getAttribute("aria-label")) && !!(await b.getAttribute("title")),
      `the ${id} button is not a labelled type=button with a title`);
  }
  check(/Ctrl\+B/.test(await toolbar.locator('button[data-md="bold"]').getAttribute("title")), "the bold button's title does not name Ctrl+B");

  // Roving focus: one tab stop, arrows move along.
  await toolbar.locator('button[data-md="bold"]').focus();
  await page.keyboard.press("ArrowRight");
  check((await page.evaluate(() => document.activeElement.dataset.md)) === "italic", "ArrowRight did not move to Italic");
  await page.keyboard.press("End");
  check((await page.evaluate(() => document.activeElement.dataset.md)) === "image", "End did not move to the last button");
  check((await toolbar.locator('button[tabindex="0"]').count()) === 1, "the toolbar has more than one tab stop");

  const title = `Highlighted ${Date.now() % 100000}`;
  await page.locator("#post-title").fill(title);
  check((await valueOf(page, "#post-slug")) === "", "the slug was filled in from the title");
  const src = page.locator("#post-content");
  const md = () => src.inputValue();
  await src.click();
  await page.keyboard.type("Some ");
  await page.keyboard.press("Control+b");
  await page.keyboard.type("strong");
  await page.keyboard.press("End");
  await page.keyboard.type(" and ");
  await page.keyboard.press("Control+i");
  await page.keyboard.type("soft");
  await page.keyboard.press("End");
  await page.keyboard.type(" words.\n\nTides");
  check((await md()) === "Some **strong** and _soft_ words.\n\nTides", `bold and italic gave ${JSON.stringify(await md())}`);
  await toolbar.locator('button[data-md="heading"]').click();
  check((await md()).endsWith("\n## Tides"), `the heading button gave ${JSON.stringify(await md())}`);
  await page.keyboard.press("Control+z");
  check((await md()).endsWith("\nTides"), `Ctrl+Z did not undo the heading: ${JSON.stringify(await md())}`);
  await page.keyboard.press("Control+Alt+Digit2");
  check((await md()).endsWith("\n## Tides"), `Ctrl+Alt+2 gave ${JSON.stringify(await md())}`);

  await page.keyboard.press("End");
  await page.keyboard.type("\n\nSee ");
  await page.keyboard.press("Control+k");
  await page.keyboard.type("the harbour"); // over the selected placeholder
  check((await md()).endsWith("\nSee [the harbour](https://)"), `Ctrl+K gave ${JSON.stringify(await md())}`);
  await src.evaluate((el) => { el.setSelectionRange(el.value.length, el.value.length); });
  await page.keyboard.type("\n\nlow\nhigh");
  await src.evaluate((el) => { const i = el.value.lastIndexOf("low"); el.setSelectionRange(i, el.value.length); });
  await page.keyboard.press("Control+Shift+Digit8");
  check((await md()).endsWith("\n- low\n- high"), `Ctrl+Shift+8 gave ${JSON.stringify(await md())}`);
  await toolbar.locator('button[data-md="numbered"]').click();
  check((await md()).endsWith("\n1. low\n2. high"), `the numbered-list button gave ${JSON.stringify(await md())}`);
  await src.evaluate((el) => { el.setSelectionRange(el.value.length, el.value.length); });
  await page.keyboard.type("\n\nA saying");
  await toolbar.locator('button[data-md="quote"]').click();
  check((await md()).endsWith("\n> A saying"), `the quote button gave ${JSON.stringify(await md())}`);
  await page.keyboard.type("\n\nRun ");
  await page.keyboard.press("Control+e");
  await page.keyboard.type("go test");
  await page.keyboard.press("End");
  check((await md()).endsWith("\nRun `go test`"), `Ctrl+E gave ${JSON.stringify(await md())}`);
  await page.keyboard.type("\n\nfunc main() { fmt.Println(\"tide\") }");
  await page.keyboard.press("Control+Shift+KeyE");
  await page.keyboard.type("go");
  check((await md()).endsWith("\n```go\nfunc main() { fmt.Println(\"tide\") }\n```"), `Ctrl+Shift+E gave ${JSON.stringify(await md())}`);
  await src.evaluate((el) => { el.setSelectionRange(el.value.length, el.value.length); });
  await page.keyboard.type("\n\n| Port | Height |\n|:--|--:|\n| Brest | 6.1 m |\n\n");

  // An image from the toolbar's file picker.
  const [chooser] = await Promise.all([page.waitForEvent("filechooser"), toolbar.locator('button[data-md="image"]').click()]);
  await chooser.setFiles({ name: "harbour-map.png", mimeType: "image/png", buffer: png(64, 48, 9) });
  await page.waitForFunction(() => /!\[harbour-map\]\([^)]*\/i\/[^)]+\)/.test(document.querySelector("#post-content").value), null, { timeout: WAIT })
    .catch(() => fail("the image chosen from the toolbar never appeared as ![harbour-map](/i/...)"));

  // The preview: highlighted Go, the right-aligned cell, no CSP violation.
  await page.waitForFunction(() => {
    const p = document.querySelector("[data-md-preview]");
    return p.querySelector("code.language-go span.hl-k") && p.querySelector("td.align-right") && p.querySelector('img[src*="/i/"]');
  }, null, { timeout: WAIT }).catch(() => fail("the preview lacks the highlighted Go, the aligned cell or the image"));
  const shown = await page.evaluate(() => {
    const p = document.querySelector("[data-md-preview]");
    const kw = p.querySelector("code.language-go span.hl-k");
    return {
      align: getComputedStyle(p.querySelector("td.align-right")).textAlign,
      kw: getComputedStyle(kw).color, text: getComputedStyle(kw.parentElement).color,
      styled: p.querySelectorAll("[style]").length, csp: window.__folioCSP.length,
    };
  });
  check(shown.align === "right", `the right-aligned cell is text-align ${shown.align} in the preview`);
  check(shown.kw !== shown.text, "the keyword is not coloured in the preview");
  check(shown.styled === 0 && shown.csp === 0, `the preview has ${shown.styled} style attributes and ${shown.csp} CSP violations`);

  // Tags: a comma commits one, a pasted list adds each.
  const entry = page.locator("#post-tags-entry");
  await entry.click();
  await page.keyboard.type("tides,harbours,");
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.setData("text/plain", "maps, charts");
    document.querySelector("#post-tags-entry").dispatchEvent(new ClipboardEvent("paste", { bubbles: true, cancelable: true, clipboardData: dt }));
  });
  const tags = await page.locator("#post-tags").inputValue();
  check(tags === "tides, harbours, maps, charts", `the tags are "${tags}"`);
  check((await page.locator(".tag-box .chip").count()) === 4, "the tags do not show as four chips");
  check(/comma/.test(await valueOf(page, "#tags-hint")), "the tags hint does not mention the comma");
  await look(page, "blog-editor-toolbar");
  // The toolbar wraps on a phone: the page is no wider than the screen.
  await page.setViewportSize({ width: 360, height: 800 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  await page.setViewportSize({ width: 1280, height: 900 });
  check(wide <= 360, `the editor is ${wide} px wide at 360`);

  // Leaving with unsaved changes asks first; the text waits in the draft.
  const typed = await md();
  await page.waitForTimeout(700); // the draft is stored 400 ms after the last change
  const dialogs = [];
  const onDialog = (d) => dialogs.push(d.type());
  page.on("dialog", onDialog);
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.locator(".file-crumbs a").click()]);
  check(dialogs.includes("beforeunload"), `leaving with unsaved changes asked nothing (dialogs: ${dialogs.join(", ") || "none"})`);
  await go(page, "/console/blog/posts/new");
  await need(page, ".draft-notice", "the restored-draft notice");
  check((await md()) === typed, "the unsaved Markdown did not come back");

  // Saving asks nothing; published, the slug note shows.
  dialogs.length = 0;
  await page.locator("#post-status").selectOption("published");
  await submit(page, "#post-editor");
  page.off("dialog", onDialog);
  check(dialogs.length === 0, `saving asked first (${dialogs.join(", ")})`);
  check((await flash(page)) === "Post created.", "no Post created. flash");
  const slug = await valueOf(page, "#post-slug");
  check(slug.startsWith("highlighted-"), `the server made the slug "${slug}"`);
  check((await valueOf(page, "#slug-note")).includes(`/posts/${slug}`), "the published post's slug note does not name its URL");
  await look(page, "blog-editor-published");

  // The site: the same highlighting and alignment, readable in both schemes.
  await go(page, `/posts/${slug}`);
  await need(page, "main pre code.language-go span.hl-k", "the highlighted Go on the site");
  const site = await page.evaluate(() => ({
    align: getComputedStyle(document.querySelector("main td.align-right")).textAlign,
    spans: document.querySelectorAll("main pre span.hl-s, main pre span.hl-f").length,
  }));
  check(site.align === "right", `the right-aligned cell is text-align ${site.align} on the site`);
  check(site.spans >= 2, "the site's code lacks string and function spans");
  await settle(page);
  await axe(page, "site-post-highlighted");
  state.editorPost = { slug };
}

// stepBlog runs the blog from the console as the administrator: the
// dashboard, a page with the "about" template, terms, a friend link, the
// settings; a reader's comment approved in the queue and seen on the post;
// a new site name seen on the site, then restored.
async function stepBlog(browser) {
  let a = state.admin;
  if (!a) {
    a = await newContext(browser, "admin");
    state.admin = a;
    await signIn(a.page, ADMIN_USER, ADMIN_PASSWORD);
  }
  const page = a.page;
  await go(page, "/console/blog");
  await need(page, "#blog-posts-h", "the dashboard's post counts");
  await look(page, "blog-dashboard");

  await go(page, "/console/blog/pages");
  await look(page, "blog-pages");
  await go(page, "/console/blog/pages/new");
  await need(page, "#page-editor[data-editor]", "the page editor");
  await page.locator("#page-title").fill("About the blog");
  await page.locator("#page-slug").fill("about-the-blog");
  await page.locator("#page-content").fill("We write about *things*.");
  await page.locator("#page-status").selectOption("published");
  await page.locator("#page-template").selectOption("about");
  const email = await need(page, 'input[name="config.about.email"]', "the about template's email field");
  check(await email.isVisible(), "the chosen template's settings are hidden");
  check(!(await page.locator('fieldset[data-template-config="default"]').isVisible()), "another template's settings show");
  check(await email.evaluate((e) => e.required), "the required key is not required");
  await email.fill("editor@example.com");
  await look(page, "blog-page-editor");
  await submit(page, "#page-editor");
  check((await flash(page)) === "Page created.", `creating the page: ${await flash(page)}`);
  await need(page, 'a[href="/pages/about-the-blog"]', "the link to the page on the site");

  for (const [p, name] of [["/console/blog/categories", "blog-categories"], ["/console/blog/tags", "blog-tags"]]) {
    await go(page, p);
    await need(page, "#term-create", `the add form on ${p}`);
    await look(page, name);
  }
  await go(page, "/console/blog/links");
  await page.locator("#link-name").fill("A friend");
  await page.locator("#link-url").fill("https://friend.example/");
  await submit(page, "#link-create");
  check((await flash(page)).startsWith("Added the friend link"), "the friend link was not added");
  await need(page, "#links-table", "the friend links table");
  await look(page, "blog-links");
  await go(page, "/console/blog/settings");
  await look(page, "blog-settings");
  await go(page, "/console/blog/federation");
  await need(page, "#fed-settings", "the federation settings form");
  await look(page, "blog-federation");

  // Import a small WordPress export through the console and read its
  // report; then download the blog as a Folio archive.
  await go(page, "/console/blog/import");
  await need(page, "#import-form", "the import form");
  await look(page, "blog-import");
  await page.locator("#import-file").setInputFiles(IMPORT_SAMPLE);
  await submit(page, "#import-form");
  await need(page, "#import-counts", "the import report's table");
  check((await page.locator("#import-warnings li", { hasText: "notes-to-self" }).count()) === 1,
    "the report's warnings do not name the private post notes-to-self");
  await look(page, "blog-import-report");
  await go(page, "/console/blog/import");
  allow({ failure: /ERR_ABORTED/, url: new RegExp(`^${reEscape(BASE)}/api/v1/admin/export$`) });
  const [archive] = await Promise.all([page.waitForEvent("download"), page.locator("#export-download").click()]);
  check(await archive.path(), `the export's download failed: ${await archive.failure()}`);
  check(/^folio-export-\d{8}\.zip$/.test(archive.suggestedFilename()), `the export is named ${archive.suggestedFilename()}`);
  await settle(page);

  // A reader comments, signed out, through the site's form.
  const r = await newContext(browser, "reader");
  await go(r.page, "/posts/seeded-1");
  const text = `A reader's note ${Date.now()}`;
  await (await need(r.page, '#comment-form input[name="author"]', "the comment form")).fill("Reader");
  await r.page.locator('#comment-form input[name="email"]').fill("reader@example.com");
  await r.page.locator('#comment-form textarea[name="content"]').fill(text);
  await submit(r.page, "#comment-form");
  check(!(await r.page.content()).includes(text), "a pending comment shows on the post");

  await go(page, "/console/blog/comments");
  const item = page.locator("#comments-list li", { hasText: text });
  check((await item.count()) === 1, "the new comment is not in the pending queue");
  await item.locator('input[type=checkbox][name="ids"]').check();
  await look(page, "blog-comments");
  await submit(page, '#comments-batch button[value="approve"]');
  check((await flash(page)) === "Approved 1 comment.", `approving: ${await flash(page)}`);
  await go(r.page, "/posts/seeded-1");
  check((await r.page.content()).includes(text), "the approved comment is not on the post's page");
  await go(r.page, "/pages/about-the-blog");
  check((await r.page.content()).includes("editor@example.com"), "the page's config is not on the site");

  // A new site name shows on the site and in the console; then it goes back.
  for (const name of ["Renamed in the Console", "Browser Test Blog"]) {
    await go(page, "/console/blog/settings");
    await page.locator("#site-site-name").fill(name);
    await submit(page, "#blog-settings");
    check((await flash(page)) === "Settings saved.", "the settings were not saved");
    check((await page.title()).includes(name), `the console's title is ${await page.title()}`);
    await go(r.page, "/");
    check((await r.page.title()).includes(name), `the site's title is ${await r.page.title()}, want ${name}`);
  }
  await r.context.close();
}

// stepRevisions: the administrator saves a published post through the API
// a few times, renaming it twice; its first slug still reaches it; the
// console lists its revisions, compares one with the current version and
// restores it. The restore lands on the post editor, another page of the
// console: until that page exists the landing is a 404.
async function stepRevisions(browser) {
  if (!state.admin) {
    state.admin = await newContext(browser, "admin");
    await signIn(state.admin.page, ADMIN_USER, ADMIN_PASSWORD);
  }
  const page = state.admin.page;
  const api = async (method, p, data) => {
    const res = await page.request.fetch(`${BASE}${p}`, { method, data, headers: { Origin: BASE } });
    check(res.ok(), `${method} ${p} answered ${res.status()}: ${await res.text()}`);
    return (await res.json()).data;
  };
  const stamp = Date.now().toString(36);
  const slugs = [`revised-${stamp}`, `revised-${stamp}-b`, `revised-${stamp}-c`];
  const body = (slug, text) => ({ title: "A post with a history", slug, status: "published",
    content_markdown: `# A history\n\nThe opening line.\n\n${text}\n\nThe closing line.` });
  const post = await api("POST", "/api/v1/admin/posts", body(slugs[0], "The original middle."));
  await api("PUT", `/api/v1/admin/posts/${post.id}`, body(slugs[0], "A rewritten middle,\nnow on two lines."));
  await api("PUT", `/api/v1/admin/posts/${post.id}`, body(slugs[1], "A rewritten middle,\nnow on two lines."));
  await api("PUT", `/api/v1/admin/posts/${post.id}`, body(slugs[2], "A rewritten middle,\nnow on two lines."));

  // The first slug leads to the current one.
  await go(page, `/posts/${slugs[0]}`);
  check((await path(page)) === `/posts/${slugs[2]}`, `/posts/${slugs[0]} landed on ${page.url()}`);
  await need(page, "text=now on two lines", "the current text on the post");

  await go(page, `/console/blog/posts/${post.id}/revisions`);
  await need(page, "#revisions-table tbody tr:nth-child(3)", "three revisions in #revisions-table");
  await look(page, "blog-revisions");
  // The oldest is the post as created.
  const oldest = page.locator("#revisions-table tbody tr:last-child a");
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), oldest.click()]);
  await need(page, ".diff del", "a removed line (del) in the diff");
  await need(page, ".diff ins", "an added line (ins) in the diff");
  await need(page, "#revision-changes", "the table of changed fields");
  await look(page, "blog-revision");

  await submit(page, "#revision-restore");
  check((await path(page)) === `/console/blog/posts/${post.id}`, `the restore landed on ${page.url()}`);
  const note = await flash(page);
  check(/^Restored the version of /.test(note), `the restore's flash says ${JSON.stringify(note)}`);

  // The site shows the restored text under the restored slug, and the
  // slug it gave up leads there.
  await go(page, `/posts/${slugs[2]}`);
  check((await path(page)) === `/posts/${slugs[0]}`, `/posts/${slugs[2]} landed on ${page.url()} after the restore`);
  await need(page, "text=The original middle.", "the restored text on the post");
  await settle(page);
}

// adminAPI signs the administrator in to the JSON API and returns a
// function that calls it with the access token.
async function adminAPI() {
  const login = await fetch(`${BASE}/api/v1/auth/login`, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: ADMIN_USER, password: ADMIN_PASSWORD }),
  });
  const token = (await login.json())?.data?.access_token;
  if (!token) fail(`the administrator could not sign in to the API: HTTP ${login.status}`);
  return async (method, p, body) => {
    const res = await fetch(`${BASE}${p}`, {
      method, body: body === undefined ? undefined : JSON.stringify(body),
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    });
    const json = await res.json().catch(() => null);
    check(res.ok, `${method} ${p} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
}

// fits360 fails when the page scrolls sideways on a 360 px wide screen.
async function fits360(page, name) {
  const size = page.viewportSize();
  await page.setViewportSize({ width: 360, height: 740 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  await page.setViewportSize(size);
  check(wide <= 360, `${name} is ${wide} px wide on a 360 px screen`);
}

// stepUploaderGallery: eleven files at once (one empty, one over a small
// limit set for the step) give compact rows; the format picker, Copy all
// and the quota line work without a reload; the gallery's viewer opens,
// moves by key and by swipe and closes; three files are moved to an album,
// made restricted, and two deleted after the question
// (docs/console.md#uploading, #my-files-and-albums).
async function stepUploaderGallery(u) {
  const page = u.page;
  const api = await adminAPI();
  const before = (await api("GET", "/api/v1/admin/settings")).data.upload.max_file_size;
  const limit = 64 * 1024;
  await api("PUT", "/api/v1/admin/settings", { upload: { max_file_size: limit } });
  try {
    await go(page, "/console/upload");
    await need(page, "#upload-quota", "the quota line #upload-quota");
    const quotaBefore = (await page.locator("#upload-quota").textContent()).trim();
    const files = [];
    for (let i = 1; i <= 9; i++) files.push({ name: `batch-${i}.png`, type: "image/png", bytes: png(40 + i, 30, i) });
    files.splice(4, 0, { name: "empty.png", type: "image/png", bytes: Buffer.alloc(0) });
    files.push({ name: "huge.png", type: "image/png", bytes: Buffer.alloc(limit + 20_000, 7) });
    check(files.length === 11, "the step sends 11 files");
    await page.evaluate((list) => {
      const dt = new DataTransfer();
      for (const f of list) {
        const bin = atob(f.b64);
        const bytes = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
        dt.items.add(new File([bytes], f.name, { type: f.type }));
      }
      document.querySelector("#dropzone").dispatchEvent(new DragEvent("drop", { bubbles: true, cancelable: true, dataTransfer: dt }));
    }, files.map((f) => ({ name: f.name, type: f.type, b64: f.bytes.toString("base64") })));
    try {
      await page.waitForFunction(() => {
        const items = [...document.querySelectorAll("#upload-queue li.upload-item")];
        return items.length === 11 && items.every((li) => li.dataset.state !== "uploading");
      }, null, { timeout: WAIT * 2 });
    } catch {
      fail("the 11 rows did not all end stored or refused");
    }
    const rows = await page.evaluate(() => [...document.querySelectorAll("#upload-queue li.upload-item")].map((li) => ({
      name: li.querySelector(".upload-name")?.textContent, state: li.dataset.state,
      error: li.querySelector(".upload-error")?.textContent || "", role: li.querySelector(".upload-error")?.getAttribute("role") || "",
      img: li.querySelectorAll("img").length, progress: li.querySelectorAll("progress").length,
    })));
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    check(rows.filter((r) => r.state === "done").length === 9, `9 rows should be stored: ${JSON.stringify(rows)}`);
    const emptyRow = byName["empty.png"];
    check(emptyRow?.state === "error" && emptyRow.error === "Empty file (0 bytes): nothing to upload." && emptyRow.role === "alert",
      `the empty file's row: ${JSON.stringify(emptyRow)}`);
    check(emptyRow.img === 0 && emptyRow.progress === 0, `the empty file's row shows a picture or a bar: ${JSON.stringify(emptyRow)}`);
    const hugeRow = byName["huge.png"];
    check(hugeRow?.state === "error" && /^83\.5 KiB is over the 64 KiB limit\.$/.test(hugeRow.error) && hugeRow.progress === 0,
      `the too-large file's row: ${JSON.stringify(hugeRow)}`);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    check(height < 2000, `the page with 11 rows is ${height} px high at 1280 wide, not under 2000`);

    // The quota line follows without a reload.
    try {
      await page.waitForFunction((b) => document.querySelector("#upload-quota").textContent.trim() !== b, quotaBefore, { timeout: WAIT });
    } catch {
      fail(`the quota line stayed ${JSON.stringify(quotaBefore)} after 9 stored files`);
    }
    const countOf = (t) => Number(/in (\d+) files?\./.exec(t)?.[1] ?? NaN);
    await page.waitForFunction((n) => {
      const m = /in (\d+) files?\./.exec(document.querySelector("#upload-quota").textContent);
      return m && Number(m[1]) === n;
    }, countOf(quotaBefore) + 9, { timeout: WAIT }).catch(() => {});
    const quotaAfter = (await page.locator("#upload-quota").textContent()).trim();
    check(countOf(quotaAfter) === countOf(quotaBefore) + 9, `the quota line went from ${JSON.stringify(quotaBefore)} to ${JSON.stringify(quotaAfter)}`);

    // One picker for the page, remembered; Copy all copies every stored link.
    await page.locator("#upload-format").selectOption("bbcode");
    const links = await page.locator('#upload-queue li[data-state="done"] .upload-status input').evaluateAll((is) => is.map((i) => i.value));
    check(links.length === 9 && links.every((l) => /^\[img\]https?:\/\/\S+\[\/img\]$/.test(l)), `the rows after picking BBCode: ${links.join(" | ")}`);
    check((await page.evaluate(() => localStorage.getItem("folio.upload.format"))) === "bbcode", "the format picked is not remembered");
    await page.evaluate(() => navigator.clipboard.writeText(""));
    await page.locator("#copy-all").click();
    await page.waitForFunction(() => document.querySelector("#copy-status").textContent !== "");
    const status = (await page.locator("#copy-status").textContent()).trim();
    check(status === "Copied 9 links as BBCode.", `Copy all says ${JSON.stringify(status)}`);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    check(copied === links.join("\n"), `Copy all put ${JSON.stringify(copied)} on the clipboard`);
    await look(page, "upload-results");
    await fits360(page, "the upload page with 11 rows");
  } finally {
    await api("PUT", "/api/v1/admin/settings", { upload: { max_file_size: before } });
  }

  // An album to move files into.
  await go(page, "/console/albums");
  await page.locator('#album-create [name="name"]').fill("Holidays");
  await submit(page, "#album-create");
  await flash(page);

  // The viewer: open a tile, arrow to the next, swipe back, Esc.
  await go(page, "/console/files");
  const tiles = page.locator("li.file-card a[data-viewer-tile]");
  const names = await page.locator("li.file-card").evaluateAll((ls) => ls.map((l) => l.dataset.name));
  check(names.length >= 3, `the grid shows ${names.length} files`);
  await tiles.nth(0).click();
  await page.waitForFunction(() => document.querySelector("#viewer")?.open);
  await page.waitForFunction(() => { const i = document.querySelector("#viewer-img"); return i && !i.hidden && i.complete && i.naturalWidth > 0; });
  check((await page.locator("#viewer-name").textContent()) === names[0], "the viewer does not name the tile opened");
  await look(page, "files-viewer");
  await fits360(page, "the viewer");
  await page.keyboard.press("ArrowRight");
  check((await page.locator("#viewer-name").textContent()) === names[1], "ArrowRight did not show the next file");
  const box = await page.locator("#viewer-stage").boundingBox();
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * 0.3, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.7, y, { steps: 5 });
  await page.mouse.up();
  check((await page.locator("#viewer-name").textContent()) === names[0], "a swipe to the right did not show the previous file");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("Escape");
  await page.waitForFunction(() => !document.querySelector("#viewer").open);
  // Closing gives the focus back to the tile that opened the viewer at
  // once; the dialog's close event, a task later, moves it to the file last
  // shown. Wait for that task, not just for the dialog to close.
  await page.waitForFunction((n) => document.activeElement?.closest("li.file-card")?.dataset.name === n, names[1], { timeout: WAIT }).catch(() => {});
  const focused = await page.evaluate(() => document.activeElement?.closest("li.file-card")?.dataset.name);
  check(focused === names[1], `after Esc the focus is on ${focused}, not the tile of ${names[1]}`);

  // Select three: move them to the album, make them restricted.
  const picked = (await cards(page)).filter((c) => /batch-\d\.png/.test(c.text)).slice(0, 3);
  check(picked.length === 3, "fewer than three of the step's files on the grid");
  const tick = async () => {
    for (const c of picked) await page.locator(`li.file-card input[name=ids][value="${c.id}"]`).check();
    await page.waitForFunction(() => document.querySelector("#batch-count")?.textContent === "3 files selected").catch(() => {});
    check((await page.locator("#batch-count").textContent()).trim() === "3 files selected", "the bar does not say 3 files selected");
  };
  await tick();
  const album = await page.locator("#batch-album option").evaluateAll((os) => os.find((o) => o.textContent === "Holidays")?.value);
  check(album, "#batch-album has no Holidays");
  await page.locator("#batch-album").selectOption(album);
  await submit(page, 'button[name=action][value="move"]');
  check((await flash(page)) === "Moved 3 files to Holidays.", `the move's flash says ${JSON.stringify(await flash(page))}`);
  await look(page, "files-moved");
  await fits360(page, "the grid with its batch bar");
  await tick();
  await page.locator("#batch-visibility").selectOption("restricted");
  await submit(page, 'button[name=action][value="visibility"]');
  check((await flash(page)) === "Made 3 files restricted.", `the visibility's flash says ${JSON.stringify(await flash(page))}`);
  for (const c of picked) {
    check(/Restricted/.test(await page.locator(`li.file-card[data-id="${c.id}"] .file-tag`).textContent()), `${c.text} is not restricted`);
  }
  await go(page, `/console/files?album=${album}`);
  check((await cards(page)).length === 3, "the album does not hold the three files");

  // Delete two, after the question.
  await go(page, "/console/files");
  for (const c of picked.slice(0, 2)) await page.locator(`li.file-card input[name=ids][value="${c.id}"]`).check();
  let asked = "";
  page.once("dialog", (d) => { asked = d.message(); });
  await submit(page, "#delete-selected");
  check(asked === "Delete 2 files? Their links stop working.", `the delete asked ${JSON.stringify(asked)}`);
  check((await flash(page)) === "Deleted 2 files.", "no flash after deleting two files");
  const left = await cards(page);
  for (const c of picked.slice(0, 2)) check(!left.some((x) => x.id === c.id), `the deleted ${c.text} is still listed`);
}

// ---------------------------------------------------------------------------

// stepSmall: the small things (docs/console.md#small-behaviours), with an
// account of its own, made by the administrator in the console (step g
// disables the seeded one): a double-clicked "Create token" sends one form
// and lists one token; a count says "1 file"; an expired share link says
// when it expired; the recovery codes copy to the clipboard and download
// as a text file.
async function stepSmall(browser) {
  const name = `small-${Date.now().toString(36)}`;
  const password = "small-things-password";
  const a = await newContext(browser, "admin-o");
  try {
    await signIn(a.page, ADMIN_USER, ADMIN_PASSWORD);
    await go(a.page, "/console/admin/users");
    await a.page.locator("#new-username").fill(name);
    await a.page.locator("#new-email").fill(`${name}@example.com`);
    await a.page.locator("#new-password").fill(password);
    await submit(a.page, "#user-create");
    await flash(a.page);
  } finally {
    await a.context.close();
  }

  const o = await newContext(browser, "small");
  const v = await newContext(browser, "visitor-o");
  try {
    const page = o.page;
    await signIn(page, name, password);
    check(!(await path(page)).startsWith("/console/login"), `${name} could not sign in: at ${page.url()}`);

    // A double click on "Create token": one form sent, one token.
    await go(page, "/console/tokens");
    await page.locator("#token-name").fill("double-click");
    let posts = 0;
    const count = (req) => { if (req.method() === "POST" && new URL(req.url()).pathname === "/console/tokens") posts++; };
    page.on("request", count);
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.locator("#token-create button[type=submit]").dblclick()]);
    await need(page, "#token-value", "the new token #token-value");
    await page.waitForTimeout(300);
    page.off("request", count);
    check(posts === 1, `a double click sent the create form ${posts} times, not once`);
    const token = await valueOf(page, "#token-value");
    check(token.startsWith("folio_"), `#token-value is ${token}`);
    await look(page, "token-created-once");
    await go(page, "/console/tokens");
    const rows = await page.locator('tr[data-token="double-click"]').count();
    check(rows === 1, `${rows} tokens named double-click are listed after a double click, not 1`);

    // One file: the account page says "1 file", not "1 files".
    const up = await apiUpload(token, { name: "one-file.png", type: "image/png", bytes: png(20, 20, 7) });
    check(up.status === 200 && up.body?.status === true, `an upload with the token answered ${up.status} ${JSON.stringify(up.body)}`);
    await go(page, "/console/account");
    const usage = (await page.locator('main p:has-text("Signed in as")').first().textContent()).replace(/\s+/g, " ");
    check(/ in 1 file\./.test(usage), `the account page says ${JSON.stringify(usage)}, not "in 1 file."`);

    // A share link made to expire in two seconds, opened after.
    const ends = new Date(Date.now() + 2000);
    const res = await fetch(`${BASE}/api/v1/files/${up.body.data.id}/shares`, {
      method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ expires_at: ends.toISOString() }),
    });
    const share = await res.json().catch(() => null);
    check(res.status === 201 && share?.data?.url, `creating a share link answered ${res.status} ${JSON.stringify(share)}`);
    await v.page.waitForTimeout(Math.max(0, ends.getTime() - Date.now() + 1200));
    allow({ status: 404 });
    await go(v.page, share.data.url);
    check((await v.page.locator("h1").textContent()).trim() === "Link expired", "an expired share link does not say Link expired");
    const said = (await v.page.locator("main p").first().textContent()).trim();
    check(/^This share link expired on \d{1,2} \w+ \d{4} at \d{2}:\d{2} UTC\./.test(said), `the expired link says ${JSON.stringify(said)}`);
    await look(v.page, "share-expired");

    // Recovery codes: copy and download.
    await go(page, "/console/account");
    await submit(page, "#totp-begin");
    const secret = (await valueOf(page, "#totp-secret")).replace(/\s+/g, "").toUpperCase();
    await page.locator("#totp-code").fill(totp(secret, totpStep()));
    await submit(page, "#totp-enable");
    await need(page, "#recovery-codes li", "the recovery codes #recovery-codes li");
    const codes = (await page.locator("#recovery-codes li").allTextContents()).map((c) => c.trim());
    check(codes.length === 10, `${codes.length} recovery codes, not 10`);
    check(await page.locator("#recovery-actions").isVisible(), "the copy and download buttons are hidden");
    await page.locator("#recovery-copy").click();
    await page.waitForFunction(() => document.getElementById("recovery-status")?.textContent.startsWith("Copied"));
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    check(copied.trim().split("\n").join(",") === codes.join(","), `the clipboard holds ${JSON.stringify(copied)}`);
    allow({ failure: /ERR_ABORTED/, url: /^blob:/ });
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#recovery-download").click()]);
    check(download.suggestedFilename() === `folio-recovery-codes-${name}.txt`, `the download is named ${download.suggestedFilename()}`);
    const file = await download.path();
    check(file, `the download failed: ${await download.failure()}`);
    const text = readFileSync(file, "utf8");
    for (const c of codes) check(text.includes(`\n${c}\n`), `the downloaded file lacks the code ${c}: ${JSON.stringify(text)}`);
    check(text.startsWith(`Recovery codes for ${name} at ${BASE}`), `the file starts ${JSON.stringify(text.slice(0, 80))}`);
    check((await page.locator("#recovery-status").textContent()).includes("Downloaded"), "the download is not announced");
    await look(page, "recovery-codes");
  } finally {
    await v.context.close();
    await o.context.close();
  }
}

// stepHome: the administrator's home and the phone
// (docs/console.md#the-dashboard, #navigation). The administrator signs in
// and lands on the dashboard of both sides; at 360 px the navigation folds
// behind the Menu button, which opens it (Escape closes it), and a link in
// it leads on; without JavaScript the navigation stays open; the account
// page names the sessions by browser and system, the raw user-agent in
// their title.
async function stepHome(browser) {
  const a = await newContext(browser, "admin-home");
  const page = a.page;
  try {
    await signIn(page, ADMIN_USER, ADMIN_PASSWORD);
    check((await path(page)) === "/console/admin", `the administrator's sign-in led to ${page.url()}, not /console/admin`);
    await go(page, "/console/");
    check((await path(page)) === "/console/admin", `/console/ led the administrator to ${page.url()}, not the dashboard`);
    await need(page, "#dash-blog", "the blog panel #dash-blog");
    await need(page, "#dash-files", "the files panel #dash-files");
    await need(page, '#dash-blog a.button[href="/console/blog/posts/new"]', "the New post button");
    await need(page, '#dash-blog a[href="/console/blog/comments"]', "the comments waiting");
    await need(page, "#dash-uploads img", "a thumbnail among the recent uploads");
    await need(page, "main svg.chart-svg", "the charts");
    check((await page.locator('#console-nav a[href="/console/admin"]').getAttribute("aria-current")) === "page",
      "the Dashboard link is not marked as the current page");
    await look(page, "dashboard");

    // The phone: the navigation folds behind the Menu button.
    await page.setViewportSize({ width: PHONE, height: 780 });
    const toggle = page.locator("button.nav-toggle");
    const nav = page.locator("#console-nav");
    check(await toggle.isVisible(), `no Menu button at ${PHONE} px`);
    check((await toggle.getAttribute("aria-controls")) === "console-nav", "the Menu button does not control #console-nav");
    check((await toggle.getAttribute("aria-expanded")) === "false", "the Menu button says the menu is open before it is");
    check(await nav.isHidden(), `the navigation shows at ${PHONE} px before the Menu button opens it`);
    await toggle.click();
    check((await toggle.getAttribute("aria-expanded")) === "true", "the Menu button does not say the menu is open");
    check(await nav.isVisible(), "the Menu button does not show the navigation");
    await fitsPhone(page, "dashboard with the menu open");
    await axe(page, "dashboard with the menu open");
    await page.screenshot({ path: join(SHOTS, `dashboard-menu-${PHONE}.png`), fullPage: true });
    await page.keyboard.press("Escape");
    check((await toggle.getAttribute("aria-expanded")) === "false" && await nav.isHidden(), "Escape does not close the menu");
    check(await toggle.evaluate((b) => b === document.activeElement), "Escape does not give the focus back to the Menu button");
    await toggle.click();
    const posts = nav.locator('a[href="/console/blog/posts"]');
    check(await posts.isVisible(), "the open menu lacks Posts");
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), posts.click()]);
    check((await path(page)) === "/console/blog/posts", `the menu's Posts led to ${page.url()}`);
    check((await page.locator('#console-nav a[href="/console/blog/posts"]').getAttribute("aria-current")) === "page",
      "Posts is not marked as the current page");
    check(await nav.isHidden(), "the navigation is open on the next page without the button");
    await settle(page);

    // The sessions, by browser and system.
    await go(page, "/console/account");
    const names = (await page.locator("#sessions .browser").allTextContents()).map((x) => x.trim());
    check(names.length > 0, "the account page lists no session");
    check(names.every((n) => n !== "" && !n.includes("/")), `the sessions show user-agent strings, not names: ${JSON.stringify(names)}`);
    check(names.some((n) => /Chrome on Linux$/.test(n)), `this browser is not "… Chrome on Linux": ${JSON.stringify(names)}`);
    const raw = await page.locator("#sessions .browser").first().getAttribute("title");
    check(/^Mozilla\/5\.0 /.test(raw || ""), `the raw user-agent is not kept in the title: ${raw}`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await look(page, "account-admin");
  } finally {
    await a.context.close();
  }

  // Without JavaScript the navigation stays open on a phone.
  const plain = await browser.newContext({ baseURL: BASE, viewport: { width: PHONE, height: 780 }, javaScriptEnabled: false });
  try {
    const p = await plain.newPage();
    await signIn(p, ADMIN_USER, ADMIN_PASSWORD);
    check((await path(p)) === "/console/admin", `without JavaScript the sign-in led to ${p.url()}`);
    check(await p.locator("#console-nav").isVisible(), "without JavaScript the navigation is hidden on a phone");
    check(await p.locator("button.nav-toggle").isHidden(), "without JavaScript the Menu button shows (it would do nothing)");
    const width = await p.evaluate(() => document.documentElement.scrollWidth);
    check(width <= PHONE, `without JavaScript the dashboard is ${width} px wide at ${PHONE}`);
    await p.screenshot({ path: join(SHOTS, `dashboard-nojs-${PHONE}.png`), fullPage: true });
  } finally {
    await plain.close();
  }
}

async function main() {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync"],
  });
  let u;
  const steps = [
    ["a. sign in", () => stepSignIn(u)],
    ["b. upload by drop and paste, copy", () => stepUpload(u)],
    ["c. files and albums", () => stepFiles(u)],
    ["d. share links, signed out", () => stepShare(browser, u)],
    ["n. the uploader's page and gallery", () => stepUploaderGallery(u)],
    ["e. tokens and ShareX", () => stepTokens(u)],
    ["f. two-factor sign-in", () => stepTOTP(u)],
    ["g. administration", () => stepAdmin(browser, u)],
    ["h. write a post in the editor", () => stepBlogPost(browser)],
    ["i. preview link, signed out", () => stepPreview(browser)],
    ["j. run the blog", () => stepBlog(browser)],
    ["k. revisions and slug redirect", () => stepRevisions(browser)],
    ["l. the writer's editor", () => stepEditor(browser)],
    ["m. the administrator's home and the phone", () => stepHome(browser)],
    ["o. the small things", () => stepSmall(browser)],
  ];
  let failed = false;
  try {
    u = await newContext(browser, "user");
    const only = (process.env.CONSOLE_STEPS || "").split(",").map((x) => x.trim()).filter(Boolean);
    for (const [name, run] of steps) {
      if (only.length && !only.includes(name[0])) continue;
      currentStep = name;
      allowances = [];
      const t0 = Date.now();
      console.log(`== ${name}`);
      try {
        await run();
        summary.push(`ok    ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      } catch (e) {
        failed = true;
        summary.push(`FAIL  ${name}`);
        const msg = e instanceof StepFailure ? e.message : `${name}: ${e.stack || e}`;
        console.error(`\nconsole.mjs: FAIL: ${msg}\n`);
        for (const c of [u, state.admin]) {
          if (!c) continue;
          const shot = join(SHOTS, `FAIL-${c.who}.png`);
          await c.page.screenshot({ path: shot, fullPage: true }).then(() => console.error(`   ${c.who} was at ${c.page.url()}; screenshot ${shot}`), () => {});
        }
        break;
      }
    }
  } finally {
    await browser.close().catch(() => {});
  }
  const ran = new Set(summary.map((l) => l.replace(/^\S+\s+/, "").replace(/ \(.*\)$/, "")));
  for (const [name] of steps) if (!ran.has(name)) summary.push(`skip  ${name}`);
  console.log("\nconsole steps:\n  " + summary.join("\n  "));
  console.log(`screenshots: ${SHOTS}`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(`console.mjs: ${e.stack || e}`);
  process.exit(1);
});
