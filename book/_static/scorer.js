// Site search: the book's pages (chapters, methods, verdicts) rank above the API reference, whose
// hundreds of function names would otherwise fill the first results for any term a chapter is about.
// Sphinx's own weights otherwise (sphinx/themes/basic/static/searchtools.js); loaded through
// html_search_scorer (_config.yml). A result is [docname, title, anchor, descr, score, filename].
var Scorer = {
  score: (result) => {
    const [docname, , , , score] = result;
    return docname.startsWith("book/api") ? score - 1000 : score;
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
