// Entity: GET /entities/{id} (label, types, facts and sources, paged) and GET /neighbourhood drawn with Cytoscape.js.
(function () {
  "use strict";
  const { el, getJson, showError, curie, localName, entityHref, passage } = window.Attest;

  const PAGE = 20;
  // readable on white, distinct enough side by side; a class keeps its colour by its place in the sorted class list
  const PALETTE = ["#2d5b9a", "#b5452b", "#2e7d4f", "#7b4fa0", "#a5671a", "#1f7a8c", "#9c2f6b", "#55606e",
                   "#6b8e23", "#c0392b"];
  const id = decodeURIComponent(location.pathname.slice("/ui/entity/".length));
  let entity = null;
  let graph = null;

  function entityLink(iri, label) {
    if (entity && iri === entity.iri) return el("strong", {}, entity.label);
    return el("a", { href: entityHref(iri) }, label || localName(iri));
  }

  function factRow(fact) {
    const held = fact.asserted ? "asserted" : `inferred, depth ${fact.depth ?? "?"}`;
    const docs = fact.documents.length
      ? [fact.documents.join(", "), fact.document_count > fact.documents.length ? ` (+${fact.document_count - fact.documents.length})` : ""]
      : ["–"];
    return el("tr", { class: fact.asserted ? "fact-asserted" : "fact-inferred" },
      el("td", {}, entityLink(fact.subject, fact.subject_label)),
      el("td", { class: "mono" }, curie(fact.predicate)),
      el("td", {}, fact.object ? entityLink(fact.object, fact.object_label) : el("span", { class: "value" }, fact.value)),
      el("td", {}, el("span", { class: `badge ${fact.asserted ? "band-asserted" : "band-inferred"}` }, held)),
      el("td", { class: "docs" }, ...docs),
      el("td", {}, fact.confidence === null ? "–" : fact.confidence.toFixed(2)));
  }

  async function sourceItem(source) {
    return passage(source.chunk, [entity.iri]);
  }

  function more(button, load) {
    button.onclick = async () => {
      button.disabled = true;
      try {
        await load();
      } catch (error) {
        showError(error.message);
      } finally {
        button.disabled = false;
      }
    };
  }

  async function showFacts(body) {
    document.getElementById("facts").append(...body.facts.map(factRow));
    if (!body.facts.length && !document.getElementById("facts").children.length) {
      document.getElementById("facts").append(el("tr", {}, el("td", { colspan: 6, class: "muted" }, "no facts")));
    }
    const button = document.getElementById("more-facts");
    button.hidden = !body.facts_next;
    button.dataset.cursor = body.facts_next || "";
  }

  async function showSources(body) {
    const items = await Promise.all(body.sources.map(sourceItem));
    document.getElementById("sources").append(...items);
    if (!items.length && !document.getElementById("sources").children.length) {
      document.getElementById("sources").append(el("p", { class: "muted" }, "no recorded mention"));
    }
    const button = document.getElementById("more-sources");
    button.hidden = !body.sources_next;
    button.dataset.cursor = body.sources_next || "";
  }

  function entityUrl(extra) {
    return `/entities/${encodeURIComponent(id)}?limit=${PAGE}${extra || ""}`;
  }

  function colourOf(classes) {
    const sorted = [...new Set(classes)].sort();
    return (cls) => PALETTE[sorted.indexOf(cls) % PALETTE.length];
  }

  async function drawGraph() {
    const hops = document.getElementById("hops").value;
    const inferred = document.getElementById("show-inferred").checked;
    document.getElementById("hops-value").textContent = hops;
    const summary = document.getElementById("graph-summary");
    summary.textContent = "loading…";
    const data = await getJson(`/neighbourhood?entity=${encodeURIComponent(id)}&hops=${hops}&inferred=${inferred}`);
    const colour = colourOf(data.nodes.map((n) => n.class || ""));
    const elements = [
      ...data.nodes.map((n) => ({ data: { id: n.id, iri: n.iri, label: n.label, cls: n.class || "", hop: n.hop,
        degree: n.degree, colour: colour(n.class || ""), size: Math.min(18 + 7 * Math.sqrt(n.degree), 64) } })),
      ...data.edges.map((e, i) => ({ data: { id: `e${i}`, source: e.source, target: e.target,
        label: e.label, inferred: e.inferred } })),
    ];
    if (graph) graph.destroy();
    graph = window.cytoscape({
      container: document.getElementById("graph"),
      elements,
      style: [
        { selector: "node", style: { "background-color": "data(colour)", width: "data(size)", height: "data(size)",
          label: "data(label)", "font-size": 11, color: "#1d2433", "text-valign": "bottom", "text-margin-y": 3,
          "text-background-color": "#fff", "text-background-opacity": 0.8, "text-background-padding": 1 } },
        { selector: `node[iri = ${JSON.stringify(entity.iri)}]`, style: { "border-width": 3, "border-color": "#1d2433" } },
        { selector: "edge", style: { width: 1.5, "line-color": "#8a94a6", "target-arrow-color": "#8a94a6",
          "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(label)", "font-size": 9,
          color: "#5d6778", "text-rotation": "autorotate" } },
        { selector: "edge[?inferred]", style: { "line-style": "dashed", "line-color": "#2d5b9a", "target-arrow-color": "#2d5b9a" } },
      ],
      layout: { name: "concentric", concentric: (node) => 3 - node.data("hop"), levelWidth: () => 1,
                minNodeSpacing: 24, animate: false },
      maxZoom: 1.6,
      wheelSensitivity: 0.3,
    });
    graph.on("tap", "node", (event) => {
      if (event.target.data("iri") !== entity.iri) location.href = entityHref(event.target.data("iri"));
    });
    window.attestGraph = graph; // handle for the browser test and the console
    summary.textContent = `${data.nodes.length} entities, ${data.edges.length} edges` +
      (data.truncated ? " (the nearest only: more are linked)" : "");
    const classes = [...new Set(data.nodes.map((n) => n.class || ""))].sort();
    const legend = el("ul", { class: "legend" }, classes.map((cls) => el("li", {},
      el("span", { class: "swatch", style: `background:${colour(cls)}` }), cls ? curie(cls) : "no class")));
    const list = document.getElementById("neighbours");
    list.replaceChildren(...data.nodes.filter((n) => n.iri !== entity.iri).map((n) =>
      el("li", {}, el("a", { href: entityHref(n.iri) }, n.label), el("span", { class: "muted" }, ` · hop ${n.hop}`))));
    document.querySelector(".legend")?.remove();
    list.before(legend);
  }

  async function load() {
    try {
      entity = await getJson(entityUrl());
    } catch (error) {
      document.getElementById("entity-label").textContent = error.status === 404 ? "No such entity" : "Entity";
      showError(error.message);
      return;
    }
    document.title = `Attest · ${entity.label}`;
    document.getElementById("entity-label").textContent = entity.label;
    document.getElementById("entity-id").textContent = `${entity.id} · ${entity.iri}`;
    const inferredTypes = new Set(entity.inferred_types);
    document.getElementById("entity-types").replaceChildren(...entity.types.map((t) =>
      el("span", { class: `badge ${inferredTypes.has(t) ? "band-inferred" : "band-asserted"}`,
                   title: inferredTypes.has(t) ? "inferred type" : "asserted type" },
        `${curie(t)}${inferredTypes.has(t) ? " (inferred)" : ""}`)));
    document.getElementById("entity-description").textContent = entity.descriptions.join(" ");
    document.getElementById("entity-alt").textContent = entity.alt_labels.length ? "also called " + entity.alt_labels.join(", ") : "";
    document.getElementById("entity").setAttribute("aria-busy", "false");
    more(document.getElementById("more-facts"), async () =>
      showFacts(await getJson(entityUrl(`&facts_cursor=${encodeURIComponent(document.getElementById("more-facts").dataset.cursor)}`))));
    more(document.getElementById("more-sources"), async () =>
      showSources(await getJson(entityUrl(`&sources_cursor=${encodeURIComponent(document.getElementById("more-sources").dataset.cursor)}`))));
    document.getElementById("hops").addEventListener("change", () => drawGraph().catch((e) => showError(e.message)));
    document.getElementById("show-inferred").addEventListener("change", () => drawGraph().catch((e) => showError(e.message)));
    await Promise.all([showFacts(entity), showSources(entity),
      typeof window.cytoscape === "function" ? drawGraph() :
        Promise.reject(new Error("Cytoscape.js is missing (attest/static/vendor). Run `make install` to fetch it from npm."))])
      .catch((error) => showError(error.message));
  }

  load();
})();
