// --counters' columns: the checkbox before a sweep's table shows or hides them; #counters=off in
// the address starts with them hidden.
(function () {
  "use strict";
  for (const box of document.querySelectorAll("input.counters-toggle")) {
    const table = box.closest("div.rows").querySelector("table.rows");
    const show = () => table.classList.toggle("no-counters", !box.checked);
    if (location.hash.includes("counters=off")) box.checked = false;
    box.addEventListener("change", show);
    show();
  }
})();

// The occupancy explorer. Every number it shows comes from the tables block-size embedded
// (#occupancy-model): each limit's answers by the occupancy model, looked up here and combined
// by their minimum. Nothing here computes a limit.
(function () {
  "use strict";
  const model = JSON.parse(document.getElementById("occupancy-model").textContent);
  const $ = (id) => document.getElementById(id);
  const gpuSelect = $("ex-gpu"), threads = $("ex-threads"), registers = $("ex-registers"), shared = $("ex-shared");
  const svgNS = "http://www.w3.org/2000/svg";

  // The value of a step function ([from, value] pairs) at x.
  function step(pairs, x) {
    let value = pairs[0][1];
    for (const [from, v] of pairs) {
      if (from > x) break;
      value = v;
    }
    return value;
  }

  function gpu() {
    return model.gpus.find((g) => g.key === gpuSelect.value) || model.gpus[0];
  }

  // The model's answer for the sliders' configuration.
  function answer() {
    const g = gpu();
    const t = Number(threads.value), r = Number(registers.value), s = Number(shared.value);
    const w = model.warps_per_block[t - 1];
    const limits = [g.by_warps[w - 1], g.max_blocks, step(g.by_registers[w - 1], r), step(g.by_shared_memory, s)];
    const blocks = Math.min(...limits);
    const binding = model.limiter_names.filter((_, i) => limits[i] === blocks);
    return { g, t, r, s, w, limits, blocks, binding, warpsPerSm: blocks * w, occupancy: (100 * blocks * w) / g.max_warps };
  }

  function element(name, attributes, text) {
    const node = document.createElementNS(svgNS, name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function draw(a) {
    const svg = $("ex-drawing");
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    // The SM's warp slots, 16 a row, coloured by the block that holds them.
    svg.appendChild(element("text", { x: 0, y: 14, class: "title" }, `One SM: ${a.g.max_warps} warp slots`));
    const cell = 22, perRow = 16;
    for (let slot = 0; slot < a.g.max_warps; slot++) {
      const block = Math.floor(slot / a.w);
      const used = slot < a.warpsPerSm;
      const fill = used ? (block % 2 === 0 ? "#1f77b4" : "#6baed6") : "#e6e6e6";
      svg.appendChild(element("rect", {
        x: (slot % perRow) * (cell + 2), y: 22 + Math.floor(slot / perRow) * (cell + 2),
        width: cell, height: cell, rx: 3, fill,
      }));
    }
    const gridHeight = 22 + Math.ceil(a.g.max_warps / perRow) * (cell + 2);
    svg.appendChild(element("text", { x: 400, y: 40 }, `${a.blocks} blocks x ${a.w} warps = ${a.warpsPerSm} warps`));
    svg.appendChild(element("text", { x: 400, y: 60 }, `${a.g.max_warps - a.warpsPerSm} warp slots empty`));
    // Each limit: the blocks it alone allows; the binding ones in red.
    const top = gridHeight + 24, barWidth = 420;
    const scale = Math.max(a.g.max_blocks, a.blocks) * 1.5;
    svg.appendChild(element("text", { x: 0, y: top - 6, class: "title" }, "Blocks each limit allows"));
    model.limiter_names.forEach((name, i) => {
      const value = a.limits[i];
      const y = top + i * 28;
      const unlimited = value >= model.unlimited;
      const width = unlimited ? barWidth : Math.min(value / scale, 1) * barWidth;
      const binding = value === a.blocks;
      svg.appendChild(element("text", { x: 0, y: y + 15 }, name));
      svg.appendChild(element("rect", { x: 130, y: y + 2, width: Math.max(width, 1), height: 18, fill: binding ? "#d62728" : "#9ecae1" }));
      const label = unlimited ? "not used" : `${value}${value / scale > 1 ? " (off the scale)" : ""}`;
      svg.appendChild(element("text", { x: 560, y: y + 15 }, `${label}${binding ? "  <- binds" : ""}`));
    });
    const x = 130 + Math.min(a.blocks / scale, 1) * barWidth;
    svg.appendChild(element("line", { x1: x, x2: x, y1: top - 2, y2: top + 4 * 28, stroke: "#000", "stroke-dasharray": "4 3" }));
  }

  function update() {
    const g = gpu();
    shared.max = String(g.max_shared_memory_per_block);
    const a = answer();
    $("ex-threads-value").textContent = a.t;
    $("ex-registers-value").textContent = a.r;
    $("ex-shared-value").textContent = a.s;
    $("ex-blocks").textContent = a.blocks;
    $("ex-warps").textContent = `${a.warpsPerSm} of ${g.max_warps}`;
    $("ex-occupancy").textContent = `${a.occupancy.toFixed(1)}%`;
    $("ex-binding").textContent = a.binding.join("+");
    $("ex-gpu-limits").textContent =
      `${g.name}, compute capability ${g.compute_capability}: per SM ${g.max_warps} warps, ${g.max_blocks} blocks, ` +
      `${g.registers_per_sm} registers, ${g.shared_memory_per_sm} B shared memory` +
      (g.reserved_shared_memory_per_block > 0 ? ` (${g.reserved_shared_memory_per_block} B of it reserved a block)` : "") +
      `; a block may use ${g.max_shared_memory_per_block} B.`;
    draw(a);
  }

  for (const g of model.gpus) {
    const option = document.createElement("option");
    option.value = g.key;
    option.textContent = g.name;
    gpuSelect.appendChild(option);
  }
  gpuSelect.value = model.start.gpu;
  shared.max = String(gpu().max_shared_memory_per_block);
  threads.value = model.start.threads;
  registers.value = model.start.registers;
  shared.value = model.start.shared;
  for (const control of [threads, registers, shared]) control.addEventListener("input", update);
  gpuSelect.addEventListener("change", update);
  update();

  // #check=GPU:THREADS:REGISTERS:SHARED,...: set each configuration as a user would (the menu,
  // then each slider, each with its event) and write what the page then shows into
  // #explorer-check, a line each. The browser test reads it (cli/tests/browser.rs).
  const check = /^#check=(.*)$/.exec(location.hash);
  if (check) {
    const out = [];
    for (const item of check[1].split(",")) {
      const [key, t, r, s] = item.split(":");
      gpuSelect.value = key;
      gpuSelect.dispatchEvent(new Event("change"));
      for (const [control, value] of [[threads, t], [registers, r], [shared, s]]) {
        control.value = value;
        control.dispatchEvent(new Event("input"));
      }
      out.push([gpuSelect.value, threads.value, registers.value, shared.value, $("ex-blocks").textContent,
        $("ex-warps").textContent.split(" ")[0], $("ex-occupancy").textContent, $("ex-binding").textContent].join("|"));
    }
    const pre = $("explorer-check");
    pre.textContent = out.join("\n");
    pre.hidden = false;
  }
})();

