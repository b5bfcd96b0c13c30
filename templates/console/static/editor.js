// The Markdown editor of the blog's console (docs/console.md#posts-and-the-editor),
// for any form that carries these attributes:
//
//   <form data-editor data-draft-key="post:<id>|post:new|page:<id>|page:new"
//         [data-saved="more keys"]>   the page follows a save: drop the draft
//   <input data-slug-source>          the title the slug is derived from
//   <input data-slug-target>          the slug, derived until the author edits it
//   <textarea data-md-source>         the Markdown; images dropped or pasted upload
//   <div data-md-preview>             the live preview  (+ [data-md-status])
//   <input type="datetime-local" data-local-time="hidden-id">  shown in local
//                                     time, sent as RFC 3339 in the hidden field
//   <input data-tags="datalist-id">   comma-separated tags, shown as chips
//   <button data-upload-into="id">    uploads a file and puts its URL in #id
//   <button data-ai-summary="id">     fills #id with a summary from the AI
//
// Without it the form still works: the server derives an empty slug, reads
// the date as UTC and the tags as a comma-separated list.
"use strict";

(() => {
  const form = document.querySelector("form[data-editor]");
  if (!form) return;
  const tokenField = form.querySelector('input[name="form_token"]') || document.querySelector('input[name="form_token"]');
  const token = tokenField ? tokenField.value : "";
  const source = form.querySelector("[data-md-source]");
  const preview = document.querySelector("[data-md-preview]");
  const previewStatus = document.querySelector("[data-md-status]");
  const uploadStatus = form.querySelector("[data-upload-status]");
  const draftKey = "folio:draft:" + (form.dataset.draftKey || location.pathname);

  for (const note of document.querySelectorAll(".editor-nojs")) note.hidden = true;

  let dirty = false;
  let submitting = false;
  const changed = () => {
    dirty = true;
    saveDraftSoon();
  };

  // -- The slug follows the title until the author types one. It is
  // derived as the server derives it (blog/validate.go, slugify).
  const title = form.querySelector("[data-slug-source]");
  const slug = form.querySelector("[data-slug-target]");
  const slugify = (s) => {
    let out = "";
    let dash = false;
    for (const ch of s) {
      const c = ch.toLowerCase();
      if (/^[a-z0-9]$/.test(c) && ch.charCodeAt(0) < 128) {
        if (dash && out) out += "-";
        dash = false;
        out += c;
        if (out.length >= 100) break;
      } else {
        dash = true;
      }
    }
    return out.slice(0, 100).replace(/-+$/, "");
  };
  if (title && slug) {
    let follows = slug.value === "" || slug.value === slugify(title.value);
    title.addEventListener("input", () => {
      if (follows) slug.value = slugify(title.value);
    });
    slug.addEventListener("input", () => {
      follows = slug.value === "";
    });
  }

  // -- Live preview, by the blog's own renderer.
  let previewTimer = 0;
  let previewSeq = 0;
  async function renderPreview() {
    if (!source || !preview) return;
    const seq = ++previewSeq;
    if (previewStatus) previewStatus.textContent = "Updating preview…";
    try {
      const res = await fetch("/console/blog/preview", {
        method: "POST",
        headers: { "X-Form-Token": token, Accept: "application/json" },
        body: new URLSearchParams({ content_markdown: source.value }),
        credentials: "same-origin",
      });
      if (seq !== previewSeq) return;
      if (!res.ok) {
        if (previewStatus) previewStatus.textContent = res.status === 413 ? "The text is too long to preview." : "The preview failed (HTTP " + res.status + ").";
        return;
      }
      const data = await res.json();
      if (seq !== previewSeq) return;
      // The HTML comes from the server's Markdown renderer, which escapes
      // raw HTML and drops unsafe links: the same HTML the site shows.
      preview.innerHTML = data.html;
      if (previewStatus) previewStatus.textContent = "Preview updated";
    } catch (err) {
      if (seq === previewSeq && previewStatus) previewStatus.textContent = "The preview failed: the connection was lost.";
    }
  }
  const previewSoon = () => {
    clearTimeout(previewTimer);
    previewTimer = setTimeout(renderPreview, 300);
  };
  if (source) source.addEventListener("input", previewSoon);

  // -- Uploads, through the upload API with the session cookie.
  function say(text) {
    if (uploadStatus) uploadStatus.textContent = text;
  }
  async function upload(file) {
    const data = new FormData();
    data.append("file", file, file.name);
    // A post's readers must see its images, whatever the default.
    data.append("visibility", "unlisted");
    const res = await fetch("/api/v1/upload", {
      method: "POST", body: data, credentials: "same-origin", headers: { Accept: "application/json" },
    });
    let body = null;
    try {
      body = await res.json();
    } catch (err) {
      body = null;
    }
    if (res.ok && body && body.status && body.data && body.data.links && body.data.links.url) return body.data.links.url;
    throw new Error(body && body.message ? body.message : "HTTP " + res.status);
  }

  // Images dropped on or pasted into the Markdown go in at the caret.
  const altOf = (name) => (name || "image").replace(/\.[A-Za-z0-9]+$/, "").replace(/[[\]\\]/g, "");
  function insertAtCaret(text) {
    const start = source.selectionStart ?? source.value.length;
    const end = source.selectionEnd ?? start;
    source.setRangeText(text, start, end, "end");
  }
  function replaceText(from, to) {
    const i = source.value.indexOf(from);
    if (i < 0) return;
    const caret = source.selectionStart;
    source.setRangeText(to, i, i + from.length, "preserve");
    if (caret > i) source.selectionStart = source.selectionEnd = Math.max(i, caret + to.length - from.length);
    source.dispatchEvent(new Event("input", { bubbles: true }));
  }
  let uploadSeq = 0;
  async function uploadImages(files) {
    for (const file of files) {
      const name = altOf(file.name);
      const placeholder = "![Uploading " + name + "…" + (++uploadSeq > 1 ? " " + uploadSeq : "") + "]()";
      insertAtCaret(placeholder);
      source.dispatchEvent(new Event("input", { bubbles: true }));
      say("Uploading " + file.name + "…");
      try {
        const url = await upload(file);
        replaceText(placeholder, "![" + name + "](" + url + ")");
        say("Uploaded " + file.name + ".");
      } catch (err) {
        replaceText(placeholder, "");
        say("Could not upload " + file.name + ": " + err.message);
      }
    }
  }
  const imagesOf = (list) => [...(list || [])].filter((f) => f.type.startsWith("image/"));
  if (source) {
    source.addEventListener("dragover", (event) => {
      if (event.dataTransfer && [...event.dataTransfer.types].includes("Files")) event.preventDefault();
    });
    source.addEventListener("drop", (event) => {
      const files = imagesOf(event.dataTransfer && event.dataTransfer.files);
      if (!files.length) return;
      event.preventDefault();
      source.focus();
      uploadImages(files);
    });
    source.addEventListener("paste", (event) => {
      const files = imagesOf(event.clipboardData && event.clipboardData.files);
      if (!files.length) return;
      event.preventDefault();
      uploadImages(files);
    });
  }

  // A button that uploads a file and puts its URL in a field.
  for (const button of form.querySelectorAll("button[data-upload-into]")) {
    const target = document.getElementById(button.dataset.uploadInto);
    if (!target) continue;
    button.hidden = false;
    const picker = document.createElement("input");
    picker.type = "file";
    picker.accept = "image/*";
    picker.hidden = true;
    picker.tabIndex = -1;
    picker.setAttribute("aria-hidden", "true");
    button.after(picker);
    button.addEventListener("click", () => picker.click());
    picker.addEventListener("change", async () => {
      const file = picker.files && picker.files[0];
      if (!file) return;
      const label = button.textContent;
      button.disabled = true;
      button.textContent = "Uploading…";
      try {
        target.value = await upload(file);
        target.dispatchEvent(new Event("input", { bubbles: true }));
        say("Uploaded " + file.name + ".");
      } catch (err) {
        say("Could not upload " + file.name + ": " + err.message);
      } finally {
        button.disabled = false;
        button.textContent = label;
        picker.value = "";
      }
    });
  }

  // -- The AI summary: the existing admin endpoint, with the unsaved text.
  for (const button of form.querySelectorAll("button[data-ai-summary]")) {
    const target = document.getElementById(button.dataset.aiSummary);
    const status = button.parentElement.querySelector("[data-ai-status]");
    if (!target) continue;
    button.addEventListener("click", async () => {
      button.disabled = true;
      if (status) status.textContent = "Asking the AI…";
      try {
        const res = await fetch("/api/v1/admin/ai/summary", {
          method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify({ title: title ? title.value : "", content_markdown: source ? source.value : "" }),
        });
        const body = await res.json().catch(() => null);
        if (!res.ok || !body || !body.data || typeof body.data.summary !== "string") {
          throw new Error(body && body.msg ? body.msg : "HTTP " + res.status);
        }
        target.value = body.data.summary;
        target.dispatchEvent(new Event("input", { bubbles: true }));
        if (status) status.textContent = "Summary filled in; save to keep it.";
      } catch (err) {
        if (status) status.textContent = "No summary: " + err.message;
      } finally {
        button.disabled = false;
      }
    });
  }

  // -- Dates in local time. The field shows the server's UTC value in the
  // writer's zone; on submit the hidden field carries it as RFC 3339.
  const pad = (n) => String(n).padStart(2, "0");
  const localOf = (d) => d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + "T" + pad(d.getHours()) + ":" + pad(d.getMinutes());
  const localTimes = [...form.querySelectorAll("input[data-local-time]")];
  for (const input of localTimes) {
    if (input.value) {
      const d = new Date(input.value + "Z");
      if (!Number.isNaN(d.getTime())) input.value = localOf(d);
    }
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "local time";
    const note = form.querySelector("label[for='" + input.id + "'] [data-local-note]");
    if (note) note.textContent = "Your time (" + zone + "). A future time schedules a published post; empty: when it is published.";
  }
  function stampLocalTimes() {
    for (const input of localTimes) {
      const hidden = document.getElementById(input.dataset.localTime);
      if (!hidden) continue;
      const d = input.value ? new Date(input.value) : null;
      hidden.value = d && !Number.isNaN(d.getTime()) ? d.toISOString().replace(/\.\d{3}Z$/, "Z") : "";
    }
  }

  // -- Tags as chips, with suggestions of the existing ones.
  const tagWidgets = [];
  for (const field of form.querySelectorAll("input[data-tags]")) {
    const names = () => field.value.split(",").map((s) => s.trim()).filter(Boolean);
    const box = document.createElement("div");
    box.className = "tag-box";
    const list = document.createElement("ul");
    list.className = "chips";
    list.setAttribute("aria-label", "Tags of this post");
    const entry = document.createElement("input");
    entry.type = "text";
    entry.id = field.id + "-entry";
    entry.setAttribute("list", field.dataset.tags);
    entry.autocomplete = "off";
    entry.placeholder = "Add a tag, then Enter";
    if (field.getAttribute("aria-describedby")) entry.setAttribute("aria-describedby", field.getAttribute("aria-describedby"));
    if (field.getAttribute("aria-invalid")) entry.setAttribute("aria-invalid", field.getAttribute("aria-invalid"));
    const label = form.querySelector("label[for='" + field.id + "']");
    if (label) label.htmlFor = entry.id;
    box.append(list, entry);
    field.after(box);
    field.type = "hidden";

    const set = (list) => {
      const seen = new Set();
      field.value = list.filter((n) => {
        const k = n.toLowerCase();
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      }).join(", ");
      draw();
      changed();
    };
    function draw() {
      list.replaceChildren();
      for (const name of names()) {
        const li = document.createElement("li");
        li.className = "chip";
        const text = document.createElement("span");
        text.textContent = name;
        const remove = document.createElement("button");
        remove.type = "button";
        remove.className = "chip-remove";
        remove.textContent = "×";
        remove.setAttribute("aria-label", "Remove tag " + name);
        remove.addEventListener("click", () => {
          set(names().filter((n) => n !== name));
          entry.focus();
        });
        li.append(text, remove);
        list.append(li);
      }
    }
    const take = () => {
      const add = entry.value.split(",").map((s) => s.trim()).filter(Boolean);
      entry.value = "";
      if (add.length) set(names().concat(add));
    };
    entry.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === ",") {
        event.preventDefault();
        take();
      } else if (event.key === "Backspace" && entry.value === "" && names().length) {
        set(names().slice(0, -1));
      }
    });
    entry.addEventListener("change", () => {
      // A suggestion picked from the list arrives as a change.
      if (entry.value.trim()) take();
    });
    form.addEventListener("submit", take);
    draw();
    tagWidgets.push(draw);
  }

  // -- Unsaved changes kept in localStorage under the draft key.
  const fields = () => [...form.elements].filter((el) => el.name && el.name !== "form_token" &&
    el.type !== "file" && el.type !== "submit" && el.type !== "button" &&
    !localTimes.some((i) => i.dataset.localTime === el.id));
  const snapshot = () => {
    const out = {};
    for (const el of fields()) out[el.name] = el.type === "checkbox" ? el.checked : el.value;
    return out;
  };
  const restore = (values) => {
    for (const el of fields()) {
      if (!(el.name in values)) continue;
      if (el.type === "checkbox") el.checked = !!values[el.name];
      else el.value = values[el.name];
    }
    for (const draw of tagWidgets) draw();
  };
  const storage = (() => {
    try {
      return window.localStorage;
    } catch (err) {
      return null;
    }
  })();
  let draftTimer = 0;
  function saveDraftSoon() {
    clearTimeout(draftTimer);
    draftTimer = setTimeout(saveDraft, 400);
  }
  function saveDraft() {
    if (!storage || submitting) return;
    try {
      storage.setItem(draftKey, JSON.stringify({ at: Date.now(), fields: snapshot() }));
    } catch (err) {
      // Storage full or refused: the form still works, without a safety net.
    }
  }
  const original = snapshot();
  if (storage) {
    if (form.hasAttribute("data-saved")) {
      storage.removeItem(draftKey);
      for (const k of (form.dataset.saved || "").split(/\s+/).filter(Boolean)) storage.removeItem("folio:draft:" + k);
    } else {
      let draft = null;
      try {
        draft = JSON.parse(storage.getItem(draftKey) || "null");
      } catch (err) {
        draft = null;
      }
      if (draft && draft.fields && JSON.stringify(draft.fields) !== JSON.stringify(original)) {
        restore(draft.fields);
        dirty = true;
        const notice = document.createElement("div");
        notice.className = "flash draft-notice";
        notice.setAttribute("role", "status");
        const at = new Date(draft.at);
        const text = document.createElement("span");
        text.textContent = "Restored unsaved changes from " + pad(at.getHours()) + ":" + pad(at.getMinutes()) + " — ";
        const discard = document.createElement("button");
        discard.type = "button";
        discard.className = "link";
        discard.textContent = "Discard";
        discard.addEventListener("click", () => {
          storage.removeItem(draftKey);
          restore(original);
          dirty = false;
          notice.remove();
          renderPreview();
          if (title) title.focus();
        });
        notice.append(text, discard);
        form.before(notice);
      }
    }
  }

  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
  form.addEventListener("submit", () => {
    submitting = true;
    clearTimeout(draftTimer);
    stampLocalTimes();
  });
  window.addEventListener("beforeunload", (event) => {
    if (!dirty || submitting) return;
    saveDraft();
    event.preventDefault();
    event.returnValue = "";
  });

  if (source && source.value.trim() !== "") renderPreview();
})();
