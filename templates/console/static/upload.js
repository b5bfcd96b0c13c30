// The upload page (docs/console.md#uploading). Files dropped on the page,
// pasted anywhere on it or chosen in the picker are each sent on their own
// to the upload API, with a progress bar, and their links then shown with
// copy buttons (console.js handles those). Signed in, files above the
// page's tus threshold go through tus.js instead, in chunks that survive a
// dropped connection or a reload (docs/console.md#resumable-uploads).
// Without this script the form posts to the page itself, which answers
// with the same cards.
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
  const endpoint = form.dataset.endpoint;
  const maxSize = Number(form.dataset.maxSize) || 0;
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

  // The links of the upload answer (data.links), as the cards list them.
  const formats = [
    ["url", "URL", "url"],
    ["markdown", "Markdown", "markdown"],
    ["html", "HTML", "html"],
    ["bbcode", "BBCode", "bbcode"],
    ["thumbnail", "Thumbnail URL", "thumbnail_url"],
  ];

  // sentence makes an API message read as the server-rendered cards do.
  function sentence(msg) {
    msg = String(msg).trim();
    if (!msg) return msg;
    msg = msg[0].toUpperCase() + msg.slice(1);
    return msg.endsWith(".") ? msg : msg + ".";
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // add queues files with the album and visibility chosen at that moment.
  function add(files) {
    for (const file of files) {
      waiting.push(makeItem(file));
    }
    if (files.length && empty) empty.hidden = true;
    pump();
  }

  function makeItem(file) {
    const n = ++counter;
    const name = file.name || "pasted file";
    const li = el("li", "upload-item card");
    li.dataset.state = "uploading";
    li.appendChild(el("p", "upload-name", name));
    if (file.type && file.type.startsWith("image/")) {
      const img = el("img", "upload-preview");
      img.alt = "Preview of " + name;
      img.src = URL.createObjectURL(file);
      img.addEventListener("load", () => URL.revokeObjectURL(img.src), { once: true });
      li.appendChild(img);
    }
    const progress = el("progress", "upload-progress");
    progress.max = 100;
    progress.value = 0;
    progress.setAttribute("aria-label", "Progress of " + name);
    li.appendChild(progress);
    // The bar says the percentage to assistive technology; the line of
    // bytes and speed would only repeat it, several times a second.
    const stats = el("p", "upload-stats muted");
    stats.setAttribute("aria-hidden", "true");
    li.appendChild(stats);
    queue.appendChild(li);
    return {
      n, file, name, li, progress, stats, started: 0, lastShown: 0,
      album: album ? album.value : "",
      visibility: visibility ? visibility.value : "",
      expires: expires ? expires.value : "",
    };
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

  function send(item) {
    if (maxSize && item.file.size > maxSize) {
      fail(item, "File is larger than the maximum file size.");
      finish();
      return;
    }
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
    xhr.addEventListener("load", () => {
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
        fail(item, sentence(body.message));
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
    }).then((body) => {
      if (body && body.status && body.data && body.data.links) {
        show(item, f.size, f.size, 0, true);
        succeed(item, body.data.links);
      } else {
        fail(item, sentence((body && body.message) || "The upload failed"));
      }
    }, (err) => {
      fail(item, sentence(err.message));
    }).finally(finish);
  }

  // succeed shows a stored file's links; both ways of sending end here.
  function succeed(item, links) {
    item.progress.value = 100;
    const result = el("div", "upload-result");
    for (const [format, label, key] of formats) {
      const value = links[key];
      if (!value) continue;
      const id = "u" + item.n + "-" + format;
      const box = el("div", "copy");
      const lab = el("label", "", label);
      lab.htmlFor = id;
      const row = el("div", "copy-row");
      const field = el("input");
      field.id = id;
      field.type = "text";
      field.readOnly = true;
      field.value = value;
      field.dataset.format = format;
      const button = el("button", "", "Copy");
      button.type = "button";
      button.dataset.copy = id;
      row.append(field, button);
      box.append(lab, row);
      result.appendChild(box);
    }
    item.li.appendChild(result);
    item.li.dataset.state = "done";
    // The preview swaps the whole picture for a served width (docs/console.md#uploading).
    const preview = item.li.querySelector(".upload-preview");
    const path = links.url ? new URL(links.url, location.href).pathname : "";
    if (preview && path.startsWith("/i/") && /^image\/(jpeg|png|webp)$/.test(item.file.type)) {
      preview.sizes = "16rem";
      preview.srcset = [160, 320, 480, 640].map((w) => `${path}?w=${w} ${w}w`).join(", ");
    }
  }

  function fail(item, message) {
    const p = el("p", "upload-error", message);
    p.setAttribute("role", "alert");
    item.li.appendChild(p);
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
