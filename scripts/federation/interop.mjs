// The federation interop test (docs/testing.md#federation-interop-test):
// a second ActivityPub server built on Fedify, a framework nobody on the
// team wrote, runs on loopback beside Folio and walks what a follower's
// server does, each step asserted:
//
//  1. finds the blog: Fedify looks up acct:blog@{host} by WebFinger and
//     fetches the actor (over https; Fedify's WebFinger client asks https
//     for acct: handles, so on plain http the JRD is read here and Fedify
//     fetches the actor by its URL), and reads Folio's NodeInfo;
//  2. follows it and receives Folio's Accept, whose HTTP signature Fedify
//     verified (draft-cavage, rsa-sha256, Folio's key fetched from its
//     actor);
//  3. receives the signed Create{Article} when the administrator publishes
//     a post through the API (title, content, url, hashtag checked), the
//     Update when it is edited;
//  4. replies with a Note: the reply waits in the console's comment queue
//     and, approved through the API, shows on the post's page;
//  5. likes and announces the post: the console's federation page counts
//     them;
//  6. receives the Delete when the post is deleted;
//  7. undoes its follow: the followers collection is empty again.
//
// Every inbox POST is counted by activity id; at the end each activity
// Folio sent must have arrived exactly once. With BASE2 set, the writes go
// to a second Folio process sharing the first one's database (and site
// URL): two processes deliver each activity once.
//
// scripts/federation-test.sh starts Folio and runs this with:
//   BASE            Folio's site URL, e.g. http://127.0.0.1:41234
//   BASE2           optional: a second process on the same database
//   ADMIN_USER      the administrator's username
//   ADMIN_PASSWORD  and password
//   FEDIFY_WEBFINGER  1: Fedify looks the blog up by its acct: handle
//                   (needs BASE on https; NODE_EXTRA_CA_CERTS names the
//                   certificate); otherwise by the actor's URL
//   SETTLE_MS       optional: how long to wait for duplicates after the
//                   last arrival (default 3000)
import http from "node:http";
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import {
  Accept,
  Activity,
  Announce,
  Article,
  Create,
  Delete,
  Endpoints,
  Follow,
  Hashtag,
  InProcessMessageQueue,
  Like,
  MemoryKvStore,
  Note,
  PUBLIC_COLLECTION,
  Person,
  Reject,
  Undo,
  Update,
  createFederation,
  generateCryptoKeyPair,
  } from "@fedify/fedify";
import { Temporal } from "@js-temporal/polyfill";
import { configure, getConsoleSink } from "@logtape/logtape";

const env = (name) => {
  const v = process.env[name];
  if (!v) {
    console.error(`interop.mjs: the environment variable ${name} is required`);
    process.exit(2);
  }
  return v;
};
const BASE = env("BASE").replace(/\/+$/, "");
const BASE2 = (process.env.BASE2 || "").replace(/\/+$/, "");
const WRITE = BASE2 || BASE;
const ADMIN_USER = env("ADMIN_USER");
const ADMIN_PASSWORD = env("ADMIN_PASSWORD");
const FEDIFY_WEBFINGER = process.env.FEDIFY_WEBFINGER === "1";
const SETTLE_MS = Number(process.env.SETTLE_MS || 3000);
// Generous: CI runs this on two busy cores; every wait polls and returns
// as soon as its condition holds.
const WAIT_MS = 20_000;

class StepFailure extends Error {}
let currentStep = "(start)";
const fail = (message) => {
  throw new StepFailure(`${currentStep}: ${message}`);
};
const check = (cond, message) => {
  if (!cond) fail(message);
};
const step = (name) => {
  currentStep = name;
  console.log(`-- ${name}`);
};
const note = (message) => console.log(`   ${message}`);

// Fedify's warnings and errors (a signature it refused, a request that
// failed) go to stderr, where the failure report shows them.
await configure({
  sinks: { console: getConsoleSink() },
  contextLocalStorage: new AsyncLocalStorage(),
  loggers: [
    { category: ["fedify"], sinks: ["console"], lowestLevel: "warning" },
    // It warns that alice has no Ed25519 key for object proofs on every
    // send: HTTP signatures are what this test is about.
    { category: ["fedify", "federation", "outbox"], sinks: ["console"], lowestLevel: "error" },
    { category: ["logtape", "meta"], sinks: ["console"], lowestLevel: "warning" },
  ],
});

// ---------------------------------------------------------------------------
// The Fedify server: one actor, alice, with an inbox and a shared inbox.

const keyPair = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
const notes = new Map();
const federation = createFederation({
  kv: new MemoryKvStore(),
  // Inbox work is queued as on a real server; sending is not, so that a
  // refusal by Folio fails the step that sent, with Folio's answer.
  queue: { inbox: new InProcessMessageQueue() },
  allowPrivateAddress: true,
});

federation
  .setActorDispatcher("/users/{identifier}", async (ctx, identifier) => {
    if (identifier !== "alice") return null;
    const keys = await ctx.getActorKeyPairs(identifier);
    return new Person({
      id: ctx.getActorUri(identifier),
      preferredUsername: identifier,
      name: "Alice of Fedify",
      url: ctx.getActorUri(identifier),
      inbox: ctx.getInboxUri(identifier),
      endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
      publicKey: keys[0].cryptographicKey,
      assertionMethods: keys.map((k) => k.multikey),
    });
  })
  .setKeyPairsDispatcher((_ctx, identifier) => (identifier === "alice" ? [keyPair] : []));

federation.setObjectDispatcher(Note, "/users/{identifier}/notes/{id}", (_ctx, values) =>
  values.identifier === "alice" ? notes.get(values.id) ?? null : null,
);

// verified holds what Fedify's inbox listeners saw: only activities whose
// signature Fedify verified reach them.
const verified = [];
const listen = async (ctx, activity) => {
  const rec = {
    type: activity.constructor.name,
    id: activity.id?.href,
    actor: activity.actorId?.href,
    objectId: activity.objectId?.href,
    recipient: ctx.recipient,
  };
  if (activity instanceof Create || activity instanceof Update) {
    try {
      rec.object = await activity.getObject();
    } catch (error) {
      rec.objectError = String(error);
    }
  }
  verified.push(rec);
};
federation
  .setInboxListeners("/users/{identifier}/inbox", "/inbox")
  .on(Accept, listen)
  .on(Reject, listen)
  .on(Create, listen)
  .on(Update, listen)
  .on(Delete, listen)
  .on(Activity, listen);

// arrivals holds every POST to an inbox, before Fedify looks at it, with
// Fedify's answer: duplicates and refused signatures show here.
const arrivals = [];

const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks);
  const url = new URL(req.url, `http://${req.headers.host}`);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const request = new Request(url, { method: req.method, headers, body: hasBody ? body : undefined });
  let response;
  try {
    response = await federation.fetch(request, {
      contextData: undefined,
      onNotFound: () => new Response("not found", { status: 404 }),
      onNotAcceptable: () => new Response("not acceptable", { status: 406 }),
    });
  } catch (error) {
    console.error("fedify: the request failed:", error);
    response = new Response("internal error", { status: 500 });
  }
  const out = Buffer.from(await response.arrayBuffer());
  if (req.method === "POST") {
    let json = {};
    try {
      json = JSON.parse(body.toString("utf8"));
    } catch {
      // Recorded with no id: the count below shows it.
    }
    const obj = json.object;
    arrivals.push({
      at: Date.now(),
      path: url.pathname,
      status: response.status,
      signature: headers.get("signature") || "",
      id: json.id,
      type: json.type,
      objectId: typeof obj === "string" ? obj : obj?.id,
      objectType: typeof obj === "object" ? obj?.type : undefined,
      body: body.toString("utf8"),
    });
    if (response.status >= 300) {
      console.error(`fedify: answered ${response.status} to ${json.type} ${json.id} at ${url.pathname}: ${out}`);
    }
  }
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(out);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const ORIGIN = `http://127.0.0.1:${server.address().port}`;
const ctx = federation.createContext(new URL(ORIGIN), undefined);
const ALICE = ctx.getActorUri("alice");
const ALICE_HANDLE = `alice@${new URL(ORIGIN).host}`;
console.log(`   Fedify ${ORIGIN}, actor ${ALICE.href}; Folio ${BASE}${BASE2 ? `, writes through ${BASE2}` : ""}`);

// ---------------------------------------------------------------------------
// Folio's API, as the administrator.

let token = "";
let cookie = "";
async function login() {
  let r = await fetch(`${WRITE}/api/v1/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: ADMIN_USER, password: ADMIN_PASSWORD }),
  });
  let j = await r.json().catch(() => ({}));
  check(r.ok && j.data?.access_token, `API login: HTTP ${r.status} ${JSON.stringify(j)}`);
  token = j.data.access_token;
  // The console's pages want the session cookie.
  r = await fetch(`${BASE}/api/v1/admin/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: BASE },
    body: JSON.stringify({ username: ADMIN_USER, password: ADMIN_PASSWORD }),
  });
  check(r.ok, `admin login: HTTP ${r.status} ${await r.text()}`);
  cookie = (r.headers.getSetCookie() || []).map((c) => c.split(";")[0]).join("; ");
  check(cookie.includes("folio_session="), `admin login set no session cookie: ${cookie}`);
}

async function api(method, path, body) {
  const r = await fetch(`${WRITE}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  let j;
  try {
    j = JSON.parse(text);
  } catch {
    j = undefined;
  }
  check(r.ok, `${method} /api/v1${path}: HTTP ${r.status}: ${text.slice(0, 300)}`);
  return j?.data;
}

async function page(path) {
  const r = await fetch(`${BASE}${path}`, { headers: { Cookie: cookie, Accept: "text/html" }, redirect: "manual" });
  const text = await r.text();
  check(r.status === 200, `GET ${path}: HTTP ${r.status}: ${text.slice(0, 200)}`);
  return text;
}

async function activityJSON(url) {
  const r = await fetch(url, { headers: { Accept: "application/activity+json" } });
  const text = await r.text();
  check(r.ok, `GET ${url} as ActivityStreams: HTTP ${r.status}: ${text.slice(0, 200)}`);
  check(/^application\/(activity|ld)\+json/.test(r.headers.get("content-type") || ""),
    `GET ${url}: Content-Type ${r.headers.get("content-type")}`);
  return JSON.parse(text);
}

// waitFor polls fn until it returns something truthy; it fails with what
// describe() says about the last state.
async function waitFor(what, fn, describe = () => "") {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) fail(`no ${what} within ${WAIT_MS / 1000} s${describe() ? `; ${describe()}` : ""}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const seen = () =>
  `inbox POSTs so far: ${JSON.stringify(arrivals.map((a) => `${a.type}${a.objectType ? `{${a.objectType}}` : ""} ${a.status}`))}`;
const arrived = (pred) => () => verified.find(pred);

async function send(recipient, activity, shared) {
  try {
    await ctx.sendActivity({ identifier: "alice" }, recipient, activity, { preferSharedInbox: shared });
  } catch (error) {
    fail(`Folio refused ${activity.constructor.name} ${activity.id?.href}: ${error.message}`);
  }
}

// ---------------------------------------------------------------------------
// The scenario.

const host = new URL(BASE).host;
const tag = randomUUID().slice(0, 8);
const title = `Federated post ${tag}`;
const slug = `federated-${tag}`;
const articleId = `${BASE}/posts/${slug}`;
let blog;
let follow;
let postId;

async function main() {
  step("1. find the blog (WebFinger, actor, NodeInfo)");
  const acct = `acct:blog@${host}`;
  const wf = await fetch(`${BASE}/.well-known/webfinger?resource=${encodeURIComponent(acct)}`);
  check(wf.ok, `WebFinger for ${acct}: HTTP ${wf.status}`);
  check(/^application\/(jrd\+)?json/.test(wf.headers.get("content-type") || ""), `WebFinger Content-Type ${wf.headers.get("content-type")}`);
  const jrd = await wf.json();
  check(jrd.subject === acct, `WebFinger subject ${jrd.subject}, want ${acct}`);
  const self = (jrd.links || []).find((l) => l.rel === "self" && /activity\+json|ld\+json/.test(l.type || ""));
  check(self, `WebFinger has no self link of type application/activity+json: ${JSON.stringify(jrd)}`);
  check(self.href === `${BASE}/ap/actor`, `WebFinger self link ${self.href}, want ${BASE}/ap/actor`);
  if (FEDIFY_WEBFINGER) {
    // Fedify's own lookup of the handle: WebFinger over https, then the
    // actor by the self link.
    blog = await ctx.lookupObject(acct);
    check(blog, `Fedify could not find ${acct} by WebFinger`);
    note(`Fedify found ${acct} by WebFinger`);
  } else {
    // Fedify's WebFinger client asks https for acct: handles; on plain
    // http the JRD is read above and Fedify fetches the actor by its URL.
    blog = await ctx.lookupObject(self.href);
    check(blog, `Fedify could not fetch or parse the actor at ${self.href}`);
    note(`WebFinger read over http; Fedify fetched the actor by its URL`);
  }
  check(blog.id?.href === self.href, `actor id ${blog.id?.href}`);
  check(blog.preferredUsername === "blog", `actor preferredUsername ${blog.preferredUsername}`);
  check(blog.inboxId?.href === `${BASE}/ap/actor/inbox`, `actor inbox ${blog.inboxId?.href}`);
  check(blog.endpoints?.sharedInbox?.href === `${BASE}/ap/inbox`, `actor sharedInbox ${blog.endpoints?.sharedInbox?.href}`);
  const key = await blog.getPublicKey();
  check(key?.publicKey, "Fedify found no usable public key in the actor");
  check(key.id?.href === `${BASE}/ap/actor#main-key`, `actor key id ${key.id?.href}`);
  note(`actor ${blog.id.href} (${blog.constructor.name}), key ${key.id.href}`);
  // NodeInfo 2.1's schema lets software.version be any string; Fedify's
  // strict reading wants a semantic version, which a build without one
  // ("dev") is not: the strict result is reported, the lenient one checked.
  const strict = await ctx.lookupNodeInfo(BASE);
  const nodeInfo = strict ?? await ctx.lookupNodeInfo(BASE, { parse: "best-effort" });
  check(nodeInfo, "Fedify could not read Folio's NodeInfo");
  check(nodeInfo.software.name === "folio", `NodeInfo software ${JSON.stringify(nodeInfo.software)}`);
  check(nodeInfo.protocols.includes("activitypub"), `NodeInfo protocols ${JSON.stringify(nodeInfo.protocols)}`);
  const raw = await ctx.lookupNodeInfo(BASE, { parse: "none" });
  note(`NodeInfo: ${raw?.software?.name} ${raw?.software?.version}; Fedify's strict reading ${strict ? "took it" : "refused it (a version that is not semantic)"}`);

  step("2. follow; Folio accepts with a signed Accept");
  follow = new Follow({ id: new URL(`${ORIGIN}/users/alice/follows/${randomUUID()}`), actor: ALICE, object: blog.id });
  await send(blog, follow, false);
  const accept = await waitFor("verified Accept of the Follow", arrived((v) => v.type === "Accept" && v.objectId === follow.id.href), seen);
  check(accept.actor === blog.id.href, `Accept by ${accept.actor}`);
  const acceptPost = arrivals.find((a) => a.id === accept.id);
  check(/algorithm="(rsa-sha256|hs2019)"/.test(acceptPost.signature), `Accept's Signature: ${acceptPost.signature}`);
  const signed = /headers="([^"]*)"/.exec(acceptPost.signature)?.[1].split(" ") || [];
  for (const h of ["(request-target)", "host", "date", "digest"]) {
    check(signed.includes(h), `Accept's signature leaves out ${h}: ${acceptPost.signature}`);
  }
  note(`Accept ${accept.id} arrived at ${acceptPost.path}, signature verified by Fedify (headers: ${signed.join(" ")})`);
  const followers = await activityJSON(`${BASE}/ap/actor/followers`);
  check(followers.totalItems === 1, `followers totalItems ${followers.totalItems}, want 1`);
  await login();
  check((await page("/console/blog/federation")).includes(ALICE_HANDLE), `the console's federation page does not list ${ALICE_HANDLE}`);
  note(`followers collection counts 1; the console lists ${ALICE_HANDLE}`);

  step("3. publish through the API; Fedify receives Create{Article}");
  const tagData = await api("POST", "/admin/tags", { name: `fedi${tag}`, slug: `fedi${tag}` });
  const post = await api("POST", "/admin/posts", {
    title,
    slug,
    summary: `The summary of ${tag}.`,
    content_markdown: `First paragraph of ${tag}, with **bold** text.\n\nSecond paragraph.`,
    status: "published",
    tag_ids: [tagData.id],
  });
  postId = post.id;
  const create = await waitFor("verified Create{Article}", arrived((v) => v.type === "Create" && v.objectId === articleId), seen);
  check(create.actor === blog.id.href, `Create by ${create.actor}`);
  const article = create.object;
  check(article instanceof Article, `Create's object is ${article?.constructor.name} ${create.objectError || ""}`);
  check(article.name?.toString() === title, `Article name ${article.name}, want ${title}`);
  const content = article.content?.toString() || "";
  check(content.includes(`First paragraph of ${tag}`) && content.includes("<strong>bold</strong>"), `Article content ${content}`);
  const url = article.url?.href;
  check(url === articleId, `Article url ${url}, want ${articleId}`);
  check(article.attributionId?.href === blog.id.href, `Article attributedTo ${article.attributionId?.href}`);
  check(article.toIds.some((u) => u.href === PUBLIC_COLLECTION.href), `Article to ${article.toIds.map(String)}`);
  check(article.published, "Article has no published");
  const tags = [];
  for await (const t of article.getTags()) tags.push(t);
  check(tags.some((t) => t instanceof Hashtag && t.name?.toString().replace(/^#/, "") === `fedi${tag}`),
    `Article tags as Fedify read them: ${JSON.stringify(tags.map((t) => `${t.constructor.name} ${t.name}`))}, want the Hashtag fedi${tag}; ` +
    `the JSON sent: ${arrivals.find((a) => a.id === create.id)?.body}`);
  note(`Create ${create.id}: Article "${article.name}", ${content.length} characters of HTML, url ${url}`);
  const fetched = await activityJSON(articleId);
  check(fetched.type === "Article" && fetched.id === articleId, `the post URL as ActivityStreams: ${fetched.type} ${fetched.id}`);

  step("3b. edit; Fedify receives Update");
  const newTitle = `${title} (edited)`;
  await api("PATCH", `/admin/posts/${postId}`, { title: newTitle });
  const update = await waitFor("verified Update{Article}", arrived((v) => v.type === "Update" && v.objectId === articleId), seen);
  check(update.object?.name?.toString() === newTitle, `Update's Article name ${update.object?.name}, want ${newTitle}`);
  note(`Update ${update.id}: "${update.object.name}"`);

  step("4. reply; the comment waits in the console and shows once approved");
  const noteId = randomUUID();
  const replyText = `Reply from Fedify ${tag}`;
  const reply = new Note({
    id: new URL(`${ORIGIN}/users/alice/notes/${noteId}`),
    attribution: ALICE,
    content: `<p>${replyText}</p><script>alert(1)</script>`,
    replyTarget: new URL(articleId),
    to: PUBLIC_COLLECTION,
    cc: blog.id,
    published: Temporal.Now.instant(),
  });
  notes.set(noteId, reply);
  await send(blog, new Create({
    id: new URL(`${ORIGIN}/users/alice/notes/${noteId}/activity`),
    actor: ALICE,
    object: reply,
    to: PUBLIC_COLLECTION,
    cc: blog.id,
  }), true);
  const pending = await waitFor("pending comment from the reply", async () => {
    const list = await api("GET", `/admin/comments?status=pending&post_id=${postId}`);
    return (list?.items || []).find((c) => (c.content || "").includes(replyText));
  });
  check(!/<script/i.test(pending.content), `the pending comment kept a script: ${pending.content}`);
  check(pending.author === "Alice of Fedify", `comment author ${pending.author}, want the actor's name`);
  const queue = await page("/console/blog/comments");
  check(queue.includes(replyText), "the console's comment queue does not show the reply");
  note(`pending comment ${pending.id} by ${pending.author}, shown in /console/blog/comments`);
  await api("PATCH", `/admin/comments/${pending.id}`, { status: "approved" });
  await waitFor("the approved reply on the post's page", async () => {
    const r = await fetch(`${BASE}/posts/${slug}`, { headers: { Accept: "text/html" } });
    return r.ok && (await r.text()).includes(replyText);
  });
  note(`approved; shown on /posts/${slug}`);

  step("5. like and announce; the console counts them");
  const like = new Like({ id: new URL(`${ORIGIN}/users/alice/likes/${randomUUID()}`), actor: ALICE, object: new URL(articleId) });
  await send(blog, like, true);
  const boost = new Announce({
    id: new URL(`${ORIGIN}/users/alice/announces/${randomUUID()}`),
    actor: ALICE,
    object: new URL(articleId),
    to: PUBLIC_COLLECTION,
    cc: new URL(`${ORIGIN}/users/alice/followers`),
  });
  await send(blog, boost, true);
  let counts = null;
  await waitFor("a like and a boost counted on the console's federation page", async () => {
    counts = reactionCounts(await page("/console/blog/federation"), slug);
    return counts?.likes === 1 && counts?.boosts === 1;
  }, () => `the page shows ${counts ? counts.shown : "no row"} for /posts/${slug}`);
  note("1 like and 1 boost shown on /console/blog/federation");

  step("6. delete; Fedify receives Delete");
  await api("DELETE", `/admin/posts/${postId}`);
  const del = await waitFor("verified Delete of the Article", arrived((v) => v.type === "Delete" && v.objectId === articleId), seen);
  check(del.actor === blog.id.href, `Delete by ${del.actor}`);
  note(`Delete ${del.id}`);

  step("7. undo the follow; the follower is gone");
  await send(blog, new Undo({ id: new URL(`${ORIGIN}/users/alice/undos/${randomUUID()}`), actor: ALICE, object: follow }), false);
  await waitFor("followers totalItems 0", async () => (await activityJSON(`${BASE}/ap/actor/followers`)).totalItems === 0);
  const fedPage = await page("/console/blog/federation");
  check(!fedPage.includes(ALICE_HANDLE), `the console's federation page still lists ${ALICE_HANDLE}`);
  note("followers collection empty, alice gone from the console");

  step("8. each activity arrived exactly once");
  // Wait until no POST has arrived for SETTLE_MS: a second process that
  // delivered the same job again would show here.
  await waitFor("a quiet inbox", () => Date.now() - Math.max(...arrivals.map((a) => a.at)) >= SETTLE_MS);
  const byId = new Map();
  for (const a of arrivals) byId.set(a.id, (byId.get(a.id) || 0) + 1);
  const twice = [...byId].filter(([, n]) => n > 1);
  check(twice.length === 0, `delivered more than once: ${JSON.stringify(twice)}`);
  const refused = arrivals.filter((a) => a.status >= 300);
  check(refused.length === 0, `Fedify refused: ${JSON.stringify(refused)}`);
  const count = (type) => arrivals.filter((a) => a.type === type && a.objectId === articleId).length;
  check(count("Create") === 1 && count("Update") === 1 && count("Delete") === 1,
    `for the Article: ${count("Create")} Create, ${count("Update")} Update, ${count("Delete")} Delete; want one each`);
  note(`${arrivals.length} inbox POSTs, ${byId.size} distinct activities, none twice, none refused`);
}

// reactionCounts reads the likes and boosts of the post at /posts/{slug}
// from the console's federation page ("Likes and boosts" table).
function reactionCounts(html, postSlug) {
  // A row: the post's link, then its likes and its boosts, each a cell
  // such as "1 like" or "3 boosts".
  const m = new RegExp(`<a href="/posts/${postSlug}">[^<]*</a></td>\\s*<td class="num">([^<]*)</td>\\s*<td class="num">([^<]*)</td>`).exec(html);
  const n = (cell) => Number(/\d+/.exec(cell)?.[0] ?? 0);
  return m ? { likes: n(m[1]), boosts: n(m[2]), shown: `${m[1]}, ${m[2]}` } : null;
}

let code = 0;
try {
  await main();
  console.log("   interop: OK");
} catch (error) {
  code = 1;
  if (error instanceof StepFailure) console.error(`interop: FAIL: ${error.message}`);
  else console.error(`interop: FAIL: ${currentStep}:`, error);
  console.error(`interop: ${seen()}`);
  console.error(`interop: verified by Fedify: ${JSON.stringify(verified.map((v) => `${v.type} ${v.id}`))}`);
} finally {
  server.close();
  server.closeAllConnections();
}
process.exit(code);
