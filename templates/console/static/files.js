// My files (docs/console.md#the-viewer): a tile opens the viewer, a
// <dialog> showing the image at a width that fits the screen (the tile's
// srcset) or, for other files, their badge and a link. Previous and Next,
// the Left and Right arrow keys and a swipe move through the page's
// files; Esc or Close shuts it and gives the focus back to the tile of
// the file last shown. The batch bar says how many files are ticked and
// asks before deleting them. Without this script each tile is a link to
// the file's page and the batch form works alone.
"use strict";

(() => {
  const grid = document.querySelector(".file-grid");
  const dialog = document.getElementById("viewer");

  // ---- selection

  const batch = document.getElementById("files-batch");
  const count = document.getElementById("batch-count");
  const del = document.getElementById("delete-selected");
  function countTicked() {
    if (!batch) return;
    const n = batch.querySelectorAll('input[type=checkbox][name="ids"]:checked').length;
    const files = n === 1 ? "1 file" : n + " files";
    if (count) count.textContent = n ? files + " selected" : "";
    if (del) del.dataset.confirm = n ? "Delete " + files + "? Their links stop working." : "Delete the selected files? Their links stop working.";
  }
  if (batch) {
    // After console.js has ticked or cleared the boxes of "select all".
    batch.addEventListener("change", () => setTimeout(countTicked, 0));
    countTicked();
  }

  // ---- the viewer

  if (!grid || !dialog || typeof dialog.showModal !== "function") return;
  const tiles = Array.from(grid.querySelectorAll("a[data-viewer-tile]"));
  const name = document.getElementById("viewer-name");
  const img = document.getElementById("viewer-img");
  const other = document.getElementById("viewer-other");
  const badge = document.getElementById("viewer-badge");
  const meta = document.getElementById("viewer-meta");
  const open = document.getElementById("viewer-open");
  const stage = document.getElementById("viewer-stage");
  const prev = dialog.querySelector('[data-viewer="prev"]');
  const next = dialog.querySelector('[data-viewer="next"]');
  let current = -1;

  function show(i) {
    if (i < 0 || i >= tiles.length) return;
    current = i;
    const tile = tiles[i];
    const label = tile.closest("li")?.dataset.name || tile.textContent.trim();
    name.textContent = label;
    meta.textContent = tile.dataset.meta || "";
    open.href = tile.getAttribute("href");
    if (tile.dataset.view) {
      // Clear first, so the last file's picture is not shown meanwhile.
      img.removeAttribute("srcset");
      img.removeAttribute("src");
      img.alt = label;
      if (tile.dataset.srcset) {
        img.sizes = "(max-width: 900px) 100vw, 64rem";
        img.srcset = tile.dataset.srcset;
      }
      img.src = tile.dataset.view;
      img.hidden = false;
      other.hidden = true;
    } else {
      img.hidden = true;
      img.removeAttribute("src");
      img.removeAttribute("srcset");
      badge.textContent = tile.dataset.badge || "file";
      other.hidden = false;
    }
    prev.disabled = i === 0;
    next.disabled = i === tiles.length - 1;
  }

  function step(d) {
    const i = current + d;
    if (i >= 0 && i < tiles.length) show(i);
  }

  tiles.forEach((tile, i) => {
    tile.addEventListener("click", (event) => {
      // A new tab or window still opens the file's page.
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      show(i);
      dialog.showModal();
    });
  });

  prev.addEventListener("click", () => step(-1));
  next.addEventListener("click", () => step(1));
  dialog.querySelector('[data-viewer="close"]').addEventListener("click", () => dialog.close());
  dialog.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "ArrowLeft") {
      event.preventDefault();
      step(-1);
    } else if (event.key === "ArrowRight") {
      event.preventDefault();
      step(1);
    }
  });
  // A click on the backdrop (the dialog itself, outside its content) closes it.
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
  dialog.addEventListener("close", () => {
    const tile = tiles[current];
    img.removeAttribute("srcset");
    img.removeAttribute("src");
    if (tile) {
      tile.focus();
      tile.scrollIntoView({ block: "nearest" });
    }
  });

  // Swipe: a mostly horizontal move of 40 px or more, by touch, pen or
  // mouse, goes to the next file (to the left) or the previous one.
  let start = null;
  stage.addEventListener("pointerdown", (event) => {
    start = { x: event.clientX, y: event.clientY, id: event.pointerId };
  });
  stage.addEventListener("pointerup", (event) => {
    if (!start || start.id !== event.pointerId) return;
    const dx = event.clientX - start.x;
    const dy = event.clientY - start.y;
    start = null;
    if (Math.abs(dx) >= 40 && Math.abs(dx) > Math.abs(dy)) step(dx < 0 ? 1 : -1);
  });
  stage.addEventListener("pointercancel", () => {
    start = null;
  });
  // Dragging the picture would start the browser's own drag, not a swipe.
  img.addEventListener("dragstart", (event) => event.preventDefault());
})();
