// Ontology: GET /ontology/terms drawn as a class tree and a property tree, each term linked to its Turtle line.
(function () {
  "use strict";
  const { el, getJson, showError, curie, sparqlEditorHref, prefixLines } = window.Attest;

  if (!document.getElementById("class-tree")) return; // an ontology file's page shares this script

  function sourceLink(term) {
    if (!term.file) return null;
    return el("a", { class: "source-link mono small", href: `/ui/ontology/files/${encodeURIComponent(term.file)}#L${term.line}`,
                     title: `Defined in ${term.file}, line ${term.line}` }, `${term.file}:${term.line}`);
  }

  function termList(values, label) {
    return values.length ? el("div", { class: "small" }, el("span", { class: "muted" }, `${label} `), values.map(curie).join(", ")) : null;
  }

  function classCount(term) {
    const query = `${prefixLines(["ont", "rdfs"])}\n\nSELECT ?entity ?label WHERE {\n  ?entity a <${term.iri}> .\n` +
      "  OPTIONAL { ?entity rdfs:label ?label }\n}\nORDER BY ?label\nLIMIT 1000";
    return el("a", { class: "count", href: sparqlEditorHref(query), title: "List them in the SPARQL editor" },
      `${term.entities} ${term.entities === 1 ? "entity" : "entities"}`);
  }

  // terms whose parents are outside the list are roots; a term under several parents shows under each
  function tree(terms, describe) {
    const byIri = new Map(terms.map((t) => [t.iri, t]));
    const children = new Map();
    const roots = [];
    terms.forEach((t) => {
      const parents = t.parents.filter((p) => byIri.has(p) && p !== t.iri);
      if (!parents.length) roots.push(t);
      parents.forEach((p) => children.set(p, [...(children.get(p) || []), t]));
    });
    const byName = (a, b) => curie(a.iri).localeCompare(curie(b.iri));
    function node(term, path) {
      const below = path.has(term.iri) ? [] : (children.get(term.iri) || []).slice().sort(byName);
      const head = el("div", { class: "term" },
        el("span", { class: "term-name mono" }, curie(term.iri)),
        term.label ? el("span", { class: "term-label" }, ` ${term.label}`) : null, " ",
        ...describe(term), " ", sourceLink(term));
      const comment = term.comment ? el("p", { class: "term-comment muted small" }, term.comment) : null;
      if (!below.length) return el("li", { "data-iri": term.iri }, head, comment);
      const nextPath = new Set(path).add(term.iri);
      return el("li", { "data-iri": term.iri }, el("details", { open: path.size < 2 },
        el("summary", {}, head), comment, el("ul", {}, below.map((t) => node(t, nextPath)))));
    }
    return roots.sort(byName).map((t) => node(t, new Set()));
  }

  getJson("/ontology/terms").then((body) => {
    document.getElementById("ontology-files").replaceChildren(...body.files.flatMap((f, i) =>
      [i ? ", " : "", el("a", { href: `/ui/ontology/files/${encodeURIComponent(f)}` }, f)]));
    document.getElementById("class-count").textContent = `(${body.classes.length})`;
    document.getElementById("property-count").textContent = `(${body.properties.length})`;
    const classTree = document.getElementById("class-tree");
    classTree.replaceChildren(...tree(body.classes, (t) => [classCount(t)]));
    classTree.setAttribute("aria-busy", "false");
    const propertyTree = document.getElementById("property-tree");
    propertyTree.replaceChildren(...tree(body.properties, (t) => [
      el("span", { class: "badge" }, t.kind.replace("Property", "")),
      ...t.characteristics.map((c) => el("span", { class: "badge band-inferred" }, c.replace("Property", ""))),
      termList(t.domain, "domain"), termList(t.range, "range"), termList(t.inverse_of, "inverse of")]));
    propertyTree.setAttribute("aria-busy", "false");
  }).catch((error) => showError(`The ontology could not be read: ${error.message}`));

  // proposals beside the accepted terms: one list per file, each term with its confidence and evidence
  function proposedTerm(term) {
    const badges = [term.kind, ...term.characteristics.map((c) => c.replace("Property", ""))]
      .map((b) => el("span", { class: "badge" }, b));
    const confidence = term.confidence === null ? null : el("span", { class: "muted small" }, ` confidence ${term.confidence.toFixed(2)}`);
    const evidence = term.evidence.length ? el("details", {}, el("summary", { class: "small muted" }, "evidence"),
      el("ul", { class: "small" }, term.evidence.map((line) => el("li", {}, line)))) : null;
    return el("li", { "data-iri": term.iri },
      el("div", { class: "term" }, el("span", { class: "term-name mono" }, curie(term.iri)),
        term.label ? el("span", { class: "term-label" }, ` ${term.label}`) : null, " ", ...badges, confidence,
        termList(term.domain, "domain"), termList(term.range, "range"), termList(term.inverse_of, "inverse of"),
        termList(term.parents, "within"), term.alt_labels.length ? termList(term.alt_labels.map((a) => `"${a}"`), "also") : null),
      term.comment ? el("p", { class: "term-comment muted small" }, term.comment) : null, evidence);
  }

  getJson("/ontology/proposals").then((body) => {
    const list = document.getElementById("proposal-list");
    document.getElementById("proposal-count").textContent = `(${body.proposals.length})`;
    list.replaceChildren(...(body.proposals.length ? body.proposals.map((file) => el("details", { class: "proposal" },
      el("summary", {}, el("span", { class: "mono" }, file.file), el("span", { class: "muted small" }, ` ${file.terms.length} terms`)),
      file.error ? el("p", { class: "error small" }, file.error) : el("ul", { class: "tree" }, file.terms.map(proposedTerm))))
      : [el("p", { class: "muted small" }, "No proposals waiting.")]));
    list.setAttribute("aria-busy", "false");
  }).catch((error) => showError(`The proposals could not be read: ${error.message}`));
})();
