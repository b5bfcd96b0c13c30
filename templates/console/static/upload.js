// The upload page (docs/console.md#uploading). Files dropped on the page,
// pasted anywhere on it or chosen in the picker are each sent on their own
// to the upload API, with a progress bar, then shown as one compact row
// with their link in the format the page's picker names (remembered in
// localStorage) and a copy button; "Copy all" copies every stored file's
// link, one a line. Signed in, files above the page's tus threshold go
// through tus.js instead, in chunks that survive a dropped connection or a
// reload (docs/console.md#resumable-uploads), and the quota line follows
// each stored file. Without this script the form posts to the page itself,
// which answers with the same rows.
"use strict";

(() => {
  const form = document.getElementById("upload-form");
  if (!form) return;
  const input = document.getElementById("upload-input");
  const zone = document.getElementById("dropzone");
  const queue = document.getElementById("upload-queue");
  const empty = document.getElementById("upload-empty");
  const album = document.getElementById("upload-album");
  const visibility = document.getElementById("upload-visibility");
  const expires = document.getElementById("upload-expires");
  const picker = document.getElementById("upload-format");
  const copyAll = document.getElementById("copy-all");
  const copyStatus = document.getElementById("copy-status");
  const quotaLine = document.getElementById("upload-quota");
  const endpoint = form.dataset.endpoint;
  const maxSize = Number(form.dataset.maxSize) || 0;
  const list = (s) => (s || "").split(",").map((x) => x.trim().toLowerCase()).filter(Boolean);
  const allowedTypes = list(form.dataset.allowedTypes);
  const forbiddenExts = list(form.dataset.forbiddenExts);
  // Resumable uploads: absent for guests (tus takes accounts only).
  const tusEndpoint = form.dataset.tusEndpoint || "";
  const tusThreshold = Number(form.dataset.tusThreshold) || 0;
  const tusChunk = Number(form.dataset.tusChunk) || 8 << 20;
  const user = form.dataset.user || "";

  // A few files at a time keep each bar moving without starving the rest.
  const parallel = 3;
  const waiting = [];
  let running = 0;
  let counter = 0;

  // The formats of the picker: the row's data attribute holding the link
  // and the upload answer's key (data.links) it comes from.
  const formats = {
    url: { label: "URL", key: "url" },
    markdown: { label: "Markdown", key: "markdown" },
    html: { label: "HTML", key: "html" },
    bbcode: { label: "BBCode", key: "bbcode" },
    thumbnail: { label: "Thumbnail URL", key: "thumbnail_url" },
  };
  const formatKey = "folio.upload.format";

  // sentence makes an API message read as the server-rendered rows do.
  function sentence(msg) {
    msg = String(msg).trim();
    if (!msg) return msg;
    msg = msg[0].toUpperCase() + msg.slice(1);
    return msg.endsWith(".") ? msg : msg + ".";
  }

  // bytes words a size as the server's pages do (templates.HumanBytes).
  function bytes(n) {
    if (n < 1024) return n + " B";
    const units = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    let v = n / 1024;
    let i = 0;
    while (v >= 1024 && i < units.length - 1) {
      v /= 1024;
      i++;
    }
    if (v >= 100) return Math.round(v) + " " + units[i];
    return v.toFixed(1).replace(/\.0$/, "") + " " + units[i];
  }

  function plural(n, noun) {
    return n + " " + noun + (n === 1 ? "" : "s");
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function extOf(name) {
    const i = name.lastIndexOf(".");
    return i > 0 ? name.slice(i + 1).toLowerCase() : "";
  }

  // typeRules says which types the site takes, as the server's page does.
  function typeRules() {
    const parts = [];
    if (allowedTypes.length) parts.push("Allowed types: " + allowedTypes.join(", ") + ".");
    if (forbiddenExts.length) parts.push("Never taken: " + forbiddenExts.map((e) => "." + e).join(", ") + ".");
    return parts.join(" ");
  }

  // refusal is why the page refuses a file before sending it, or "". The
  // type is judged by the name and the browser's guess; the server, which
  // reads the content, has the last word.
  function refusal(file) {
    if (file.size === 0) return "Empty file (0 bytes): nothing to upload.";
    if (maxSize && file.size > maxSize) return bytes(file.size) + " is over the " + bytes(maxSize) + " limit.";
    const ext = extOf(file.name || "");
    if (ext && forbiddenExts.includes(ext)) return "File type not allowed: ." + ext + ". " + typeRules();
    const type = (file.type || "").toLowerCase();
    if (allowedTypes.length && type) {
      const ok = allowedTypes.some((a) => (a.endsWith("/*") ? type.startsWith(a.slice(0, -1)) : a.includes("/") ? a === type : a === ext));
      if (!ok) return "File type not allowed: " + type + ". " + typeRules();
    }
    return "";
  }

  // ---- the format picker, the links of the rows, "Copy all"

  function currentFormat() {
    return formats[picker?.value] ? picker.value : "url";
  }

  function linkOf(li, format) {
    return (format === "thumbnail" && li.dataset.thumbnail) || (format !== "thumbnail" && li.dataset[format]) || li.dataset.url || "";
  }

  function showLink(li) {
    const field = li.querySelector(".upload-status input");
    if (!field) return;
    const format = currentFormat();
    field.value = linkOf(li, format);
    field.dataset.format = format;
    field.setAttribute("aria-label", formats[format].label + " of " + (li.querySelector(".upload-name")?.textContent || "the file"));
  }

  function storedRows() {
    return Array.from(queue.querySelectorAll('li.upload-item[data-state="done"][data-url]'));
  }

  if (picker) {
    // A no-JavaScript answer shows the format its form sent; otherwise the
    // page starts with the one chosen last time.
    let saved = "";
    try {
      saved = localStorage.getItem(formatKey) || "";
    } catch (err) {
      saved = "";
    }
    if (picker.dataset.posted !== "1" && formats[saved]) picker.value = saved;
    picker.addEventListener("change", () => {
      try {
        localStorage.setItem(formatKey, currentFormat());
      } catch (err) {
        // Private windows may refuse storage; the choice lasts the page.
      }
      storedRows().forEach(showLink);
    });
    storedRows().forEach(showLink);
  }

  if (copyAll) {
    copyAll.hidden = false;
    copyAll.addEventListener("click", async () => {
      const rows = storedRows();
      if (!rows.length) {
        copyStatus.textContent = "Nothing to copy yet: no file is stored.";
        return;
      }
      const format = currentFormat();
      const text = rows.map((li) => linkOf(li, format)).join("\n");
      try {
        await navigator.clipboard.writeText(text);
        copyStatus.textContent = "Copied " + plural(rows.length, "link") + " as " + formats[format].label + ".";
      } catch (err) {
        copyStatus.textContent = "The browser did not let the page copy; use each row's field instead.";
      }
    });
  }

  // ---- the quota line, kept up to date from GET /api/v1/auth/me

  let quotaBusy = false;
  let quotaAgain = false;

  function showQuota(used, quota, files) {
    if (!quotaLine) return;
    quotaLine.dataset.used = String(used);
    quotaLine.dataset.quota = String(quota);
    quotaLine.textContent = (quota > 0 ? "You use " + bytes(used) + " of your " + bytes(quota) : "You use " + bytes(used) + ", with no quota") +
      ", in " + plural(files, "file") + ".";
  }

  // refreshQuota asks the server for the account's usage; calls while one
  // is under way make one more after it, not one each.
  async function refreshQuota() {
    if (!quotaLine) return;
    if (quotaBusy) {
      quotaAgain = true;
      return;
    }
    quotaBusy = true;
    try {
      const res = await fetch("/api/v1/auth/me", { headers: { Accept: "application/json" }, credentials: "same-origin" });
      const body = await res.json();
      if (res.ok && body && body.data) showQuota(body.data.used_bytes || 0, body.data.quota_bytes || 0, body.data.file_count || 0);
    } catch (err) {
      // The line stays as it was; a reload shows the truth.
    } finally {
      quotaBusy = false;
      if (quotaAgain) {
        quotaAgain = false;
        refreshQuota();
      }
    }
  }

  // ---- the queue

  // add queues files with the album and visibility chosen at that moment.
  function add(files) {
    for (const file of files) {
      waiting.push(makeItem(file));
    }
    if (files.length && empty) empty.hidden = true;
    pump();
  }

  function badge(text) {
    return el("span", "upload-badge", text);
  }

  function makeItem(file) {
    const n = ++counter;
    const name = file.name || "pasted file";
    const li = el("li", "upload-item");
    li.dataset.state = "uploading";
    const thumb = el("span", "upload-thumb");
    // An empty file would only give a broken picture.
    if (file.type && file.type.startsWith("image/") && file.size > 0) {
      const img = el("img");
      img.alt = "";
      img.src = URL.createObjectURL(file);
      img.addEventListener("load", () => URL.revokeObjectURL(img.src), { once: true });
      img.addEventListener("error", () => img.replaceWith(badge(extOf(name) || "file")), { once: true });
      thumb.appendChild(img);
    } else {
      thumb.appendChild(badge(extOf(name) || "file"));
    }
    const info = el("div", "upload-info");
    info.append(el("p", "upload-name", name), el("p", "upload-size", bytes(file.size)));
    const status = el("div", "upload-status");
    li.append(thumb, info, status);
    queue.appendChild(li);
    return {
      n, file, name, li, status, progress: null, stats: null, started: 0, lastShown: 0,
      album: album ? album.value : "",
      visibility: visibility ? visibility.value : "",
      expires: expires ? expires.value : "",
    };
  }

  // bar gives the row its progress bar, once it is really sent.
  function bar(item) {
    if (item.progress) return;
    const progress = el("progress", "upload-progress");
    progress.max = 100;
    progress.value = 0;
    progress.setAttribute("aria-label", "Progress of " + item.name);
    // The bar says the percentage to assistive technology; the line of
    // bytes and speed would only repeat it, several times a second.
    const stats = el("p", "upload-stats muted");
    stats.setAttribute("aria-hidden", "true");
    item.status.append(progress, stats);
    item.progress = progress;
    item.stats = stats;
  }

  function pump() {
    while (running < parallel && waiting.length) {
      running++;
      send(waiting.shift());
    }
  }

  function finish() {
    running--;
    pump();
  }

  function megabytes(n) {
    return (n / 1e6).toFixed(1) + " MB";
  }

  // show moves the bar and the line under it: percent, bytes and the
  // average speed since this page started sending the file (a resumed
  // upload counts from where it resumed). The bar stops at 99% until the
  // server has answered.
  function show(item, sent, total, base, done) {
    bar(item);
    const now = performance.now();
    if (!item.started) {
      item.started = now;
      item.base = base || 0;
    }
    const pct = done ? 100 : total > 0 ? Math.min(99, Math.floor((sent * 100) / total)) : 0;
    item.progress.value = pct;
    if (now - item.lastShown < 250 && !done) return;
    item.lastShown = now;
    const secs = (now - item.started) / 1000;
    const speed = secs > 0.2 ? " · " + ((sent - item.base) / 1e6 / secs).toFixed(1) + " MB/s" : "";
    item.stats.textContent = pct + "% · " + megabytes(sent) + " of " + megabytes(total) + speed;
  }

  // problem words a refusal of the server for the row, naming the limit
  // the file met (docs/console.md#when-a-file-is-refused).
  async function problem(status, message, file) {
    if (status === 413) return bytes(file.size) + " is over the " + bytes(maxSize) + " limit.";
    if (status === 415) return (sentence(message) + " " + typeRules()).trim();
    if (status === 507 && quotaLine) {
      await refreshQuota();
      const used = Number(quotaLine.dataset.used) || 0;
      const quota = Number(quotaLine.dataset.quota) || 0;
      if (quota > 0) {
        return "Not enough room: " + bytes(Math.max(quota - used, 0)) + " of your " + bytes(quota) + " is left, and this file is " + bytes(file.size) + ".";
      }
    }
    if (/^file is empty/i.test(message)) return "Empty file (0 bytes): nothing to upload.";
    return sentence(message);
  }

  function send(item) {
    const why = refusal(item.file);
    if (why) {
      fail(item, why);
      finish();
      return;
    }
    bar(item);
    if (tusEndpoint && window.folioTus && tusThreshold > 0 && item.file.size > tusThreshold) {
      sendResumable(item);
      return;
    }
    const data = new FormData();
    if (item.album) data.append("album_id", item.album);
    if (item.visibility) data.append("visibility", item.visibility);
    if (item.expires) data.append("expires_in", item.expires);
    data.append("file", item.file, item.name);

    const xhr = new XMLHttpRequest();
    xhr.open("POST", endpoint);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable && event.total > 0) show(item, event.loaded, event.total);
    });
    xhr.addEventListener("load", async () => {
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch (err) {
        body = null;
      }
      if (xhr.status === 200 && body && body.status && body.data && body.data.links) {
        show(item, item.file.size, item.file.size, 0, true);
        succeed(item, body.data.links);
      } else if (body && body.message) {
        fail(item, await problem(xhr.status, body.message, item.file));
      } else {
        fail(item, "The upload failed (HTTP " + xhr.status + ").");
      }
      finish();
    });
    xhr.addEventListener("error", () => {
      fail(item, "The connection failed. Check your network and try again.");
      finish();
    });
    xhr.addEventListener("abort", () => {
      fail(item, "The upload was interrupted.");
      finish();
    });
    xhr.send(data);
  }

  // sendResumable sends a large file through tus; the same file chosen
  // again (this account, name, size and modification time) continues the
  // upload a reload or a failure interrupted.
  function sendResumable(item) {
    const f = item.file;
    window.folioTus.upload({
      endpoint: tusEndpoint,
      file: f,
      chunkSize: tusChunk,
      fingerprint: [user, item.name, f.size, f.lastModified || 0].join(":"),
      metadata: {
        filename: item.name,
        filetype: f.type,
        album_id: item.album,
        visibility: item.visibility,
        expires_in: item.expires,
      },
      onResume: (offset) => {
        item.li.dataset.resumedAt = String(offset);
        show(item, offset, f.size, offset);
      },
      onProgress: (sent, total) => show(item, sent, total),
    }).then(async (body) => {
      if (body && body.status && body.data && body.data.links) {
        show(item, f.size, f.size, 0, true);
        succeed(item, body.data.links);
      } else {
        fail(item, sentence((body && body.message) || "The upload failed"));
      }
    }, async (err) => {
      fail(item, await problem(err.status || 0, err.message, f));
    }).finally(finish);
  }

  // succeed turns a stored file's row into its link; both ways of sending
  // end here.
  function succeed(item, links) {
    item.status.replaceChildren();
    for (const [format, { key }] of Object.entries(formats)) {
      if (links[key]) item.li.dataset[format] = links[key];
    }
    const id = "u" + item.n + "-link";
    const row = el("div", "copy-row");
    const field = el("input");
    field.id = id;
    field.type = "text";
    field.readOnly = true;
    const button = el("button", "", "Copy");
    button.type = "button";
    button.dataset.copy = id;
    row.append(field, button);
    item.status.appendChild(row);
    item.li.dataset.state = "done";
    showLink(item.li);
    // The row's picture becomes the file's thumbnail, a same-origin path
    // as the console's CSP wants, instead of the whole file chosen.
    const thumb = links.thumbnail_url ? new URL(links.thumbnail_url, location.href).pathname : "";
    const img = item.li.querySelector(".upload-thumb img");
    if (img && thumb.startsWith("/t/")) img.src = thumb;
    refreshQuota();
  }

  function fail(item, message) {
    item.status.replaceChildren();
    item.progress = null;
    const p = el("p", "upload-error", message);
    p.setAttribute("role", "alert");
    item.status.appendChild(p);
    item.li.querySelector(".upload-thumb").replaceChildren(badge("!"));
    item.li.dataset.state = "error";
  }

  input.addEventListener("change", () => {
    const files = Array.from(input.files);
    input.value = "";
    add(files);
  });

  // With the script, the form only ever sends through the queue.
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const files = Array.from(input.files);
    input.value = "";
    add(files);
  });

  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
    zone.classList.add("dragging");
  });
  zone.addEventListener("dragleave", (event) => {
    if (!zone.contains(event.relatedTarget)) zone.classList.remove("dragging");
  });
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("dragging");
    if (event.dataTransfer) add(Array.from(event.dataTransfer.files));
  });
  // A file dropped beside the zone must not replace the page with itself.
  document.addEventListener("dragover", (event) => event.preventDefault());
  document.addEventListener("drop", (event) => event.preventDefault());

  document.addEventListener("paste", (event) => {
    const files = event.clipboardData ? Array.from(event.clipboardData.files) : [];
    if (!files.length) return;
    event.preventDefault();
    add(files);
  });
})();
