// Folio's own small tus 1.0.0 client for the upload page's large files
// (docs/console.md#resumable-uploads, docs/filehost.md#resumable-uploads-tus). It creates the
// upload with the form's choices as metadata, sends the file in chunks with
// PATCH, and after a network error, a 5xx or a 409 asks the server (HEAD)
// where it stands and goes on from there, waiting a little longer each
// time. The upload's URL is remembered in localStorage under the file's
// fingerprint (account, name, size, modification time), so that choosing
// the same file again after a reload continues where it stopped; the
// entry is forgotten once the upload is finished or the server no longer
// knows it. upload.js calls window.folioTus.upload.
"use strict";

(() => {
  const version = "1.0.0";
  const prefix = "folio-tus:";
  // Waits before each new try after a failure, in milliseconds; a chunk
  // that goes through starts the list again.
  const retryDelays = [500, 1000, 2000, 4000, 8000, 15000];

  class TusError extends Error {
    constructor(message, status) {
      super(message);
      this.status = status;
    }
  }

  // encodeMetadata builds Upload-Metadata: "key base64(value)" pairs, the
  // values UTF-8.
  function encodeMetadata(meta) {
    const pairs = [];
    for (const [key, value] of Object.entries(meta)) {
      if (value === undefined || value === null || value === "") continue;
      const bytes = new TextEncoder().encode(String(value));
      let bin = "";
      for (const b of bytes) bin += String.fromCharCode(b);
      pairs.push(key + " " + btoa(bin));
    }
    return pairs.join(",");
  }

  function remember(key, url) {
    try {
      localStorage.setItem(key, JSON.stringify({ url, at: Date.now() }));
    } catch (err) {
      // Private windows may refuse storage: the upload still works, it
      // just cannot continue after a reload.
    }
  }

  function recall(key) {
    try {
      const v = JSON.parse(localStorage.getItem(key) || "null");
      return v && typeof v.url === "string" ? v.url : "";
    } catch (err) {
      return "";
    }
  }

  function forget(key) {
    try {
      localStorage.removeItem(key);
    } catch (err) {
      // Nothing was stored.
    }
  }

  function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  // request sends one request with XMLHttpRequest (for the upload
  // progress of PATCH bodies) and resolves with it; a network failure
  // resolves with status 0.
  function request(method, url, headers, body, onProgress) {
    return new Promise((resolve) => {
      const xhr = new XMLHttpRequest();
      xhr.open(method, url);
      xhr.setRequestHeader("Tus-Resumable", version);
      for (const [k, v] of Object.entries(headers || {})) xhr.setRequestHeader(k, v);
      if (onProgress) {
        xhr.upload.addEventListener("progress", (event) => onProgress(event.loaded));
      }
      xhr.addEventListener("load", () => resolve(xhr));
      xhr.addEventListener("error", () => resolve({ status: 0 }));
      xhr.addEventListener("abort", () => resolve({ status: 0 }));
      xhr.addEventListener("timeout", () => resolve({ status: 0 }));
      xhr.send(body === undefined ? null : body);
    });
  }

  // message is the server's reason in an error answer's JSON, if any.
  function message(xhr, fallback) {
    try {
      const body = JSON.parse(xhr.responseText);
      if (body && (body.message || body.msg)) return String(body.message || body.msg);
    } catch (err) {
      // Not JSON: the fallback says what happened.
    }
    return fallback + " (HTTP " + xhr.status + ").";
  }

  // transient reports whether trying again may help: the network, the
  // server's own failures, and a 409 after which HEAD tells the offset.
  function transient(status) {
    return status === 0 || status === 409 || status === 423 || status >= 500;
  }

  // upload sends opts.file to opts.endpoint and resolves with the final
  // upload answer's JSON ({status, message, data}); it rejects with a
  // TusError whose message can be shown as it is. Options: endpoint,
  // file, metadata (an object), fingerprint (a string), chunkSize,
  // onProgress(bytesSent, total), onResume(offset).
  async function upload(opts) {
    const file = opts.file;
    const key = prefix + opts.fingerprint;
    const chunkSize = opts.chunkSize || 8 << 20;
    const progress = opts.onProgress || (() => {});
    let url = recall(key);
    let offset = -1;
    let failures = 0;

    // retry waits before the next try, or gives up when the list is done.
    async function retry(xhr, what) {
      if (failures >= retryDelays.length) {
        throw new TusError(xhr.status ? message(xhr, what) : "The connection failed. Check your network and try again.", xhr.status);
      }
      await sleep(retryDelays[failures++]);
    }

    for (;;) {
      if (url && offset < 0) {
        // Where does the server stand? (A remembered upload, or after a failure.)
        const head = await request("HEAD", url);
        if (head.status === 200 || head.status === 204) {
          offset = Number(head.getResponseHeader("Upload-Offset"));
          if (!Number.isFinite(offset) || offset < 0) throw new TusError("The server's answer lacks an offset.", head.status);
          if (opts.onResume && offset > 0) opts.onResume(offset);
          progress(offset, file.size);
          continue;
        }
        if (head.status === 404 || head.status === 410 || head.status === 403) {
          // Expired, removed or not this account's: start anew.
          forget(key);
          url = "";
          continue;
        }
        if (transient(head.status)) {
          await retry(head, "The upload failed");
          continue;
        }
        throw new TusError(message(head, "The upload failed"), head.status);
      }
      if (!url) {
        const created = await request("POST", opts.endpoint, {
          "Upload-Length": String(file.size),
          "Upload-Metadata": encodeMetadata(opts.metadata || {}),
        });
        if (created.status === 201) {
          const location = created.getResponseHeader("Location");
          if (!location) throw new TusError("The server's answer lacks the upload's address.", 201);
          url = new URL(location, window.location.href).href;
          offset = 0;
          failures = 0;
          remember(key, url);
          continue;
        }
        if (created.status === 0 || created.status >= 500) {
          await retry(created, "The upload could not start");
          continue;
        }
        throw new TusError(message(created, "The upload could not start"), created.status);
      }
      if (offset >= file.size) break;
      const end = Math.min(file.size, offset + chunkSize);
      const start = offset;
      const patch = await request("PATCH", url, {
        "Upload-Offset": String(start),
        "Content-Type": "application/offset+octet-stream",
      }, file.slice(start, end), (loaded) => progress(start + loaded, file.size));
      if (patch.status === 204) {
        offset = Number(patch.getResponseHeader("Upload-Offset"));
        if (!Number.isFinite(offset)) offset = end;
        failures = 0;
        progress(offset, file.size);
        continue;
      }
      if (patch.status === 404 || patch.status === 410) {
        forget(key);
        throw new TusError("The server no longer knows this upload; choose the file again to start anew.", patch.status);
      }
      if (transient(patch.status)) {
        await retry(patch, "The upload failed");
        offset = -1;
        continue;
      }
      // Refused for good (too large, a forbidden type found at the end,
      // the quota): the server has removed the upload.
      forget(key);
      throw new TusError(message(patch, "The upload failed"), patch.status);
    }

    // Finished: the upload's URL answers what /api/v1/upload would have.
    for (;;) {
      const got = await request("GET", url, { Accept: "application/json" });
      if (got.status === 200) {
        forget(key);
        try {
          return JSON.parse(got.responseText);
        } catch (err) {
          throw new TusError("The server's answer was not understood.", got.status);
        }
      }
      if (got.status === 0 || got.status >= 500) {
        await retry(got, "The upload's result could not be read");
        continue;
      }
      forget(key);
      throw new TusError(message(got, "The upload's result could not be read"), got.status);
    }
  }

  window.folioTus = { upload };
})();
