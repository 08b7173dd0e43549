"""A raw English Wikipedia dump sample read with gensim's Wikipedia reader, Hoffman-style (his fixed vocabulary)."""
import bz2

import pandas as pd

from topicbench.readers import TEXT_PARAMS, ReaderError, TextDataset

HOFFMAN_VOCAB = "wiki_hoffman_vocab/dictnostops.txt"  # under corpora_dir, as a relative vocab_file is read


class WikiGensimSample(TextDataset):
    name = "wiki_gensim_sample"
    description = ("Raw-Wikipedia ingestion path (Hoffman's Wikipedia runs): 106 articles of a MediaWiki dump via "
                   "gensim.corpora.wikicorpus, restricted to Hoffman's 7,702-word vocabulary")
    source = "gensim 4.4.0 test_data enwiki-...-shortened.bz2 (see PROVENANCE.md)"
    params = {**TEXT_PARAMS, "hoffman_vocab": True, "article_min_tokens": 50, "max_df": 1.0, "min_df": 1}

    def read(self, corpora_dir, **p):
        from gensim.corpora.wikicorpus import IGNORED_NAMESPACES, extract_pages, process_article

        src = self.source_dir(corpora_dir, "wiki_gensim_sample")
        dumps = sorted(src.glob("*.xml*.bz2"))
        if not dumps:
            raise ReaderError(f"{src}: no *.xml*.bz2 MediaWiki dump")
        rows, first_seen = [], {}
        # gensim's WikiCorpus.get_texts, minus its process pool: the same page filter, markup
        # stripping (filter_wiki), tokenizer and the pruning of redirects / stubs (< article_min_tokens)
        for dump in dumps:
            try:
                for title, text, pageid in extract_pages(bz2.BZ2File(dump), filter_namespaces=("0",)):
                    tokens = process_article((text, title, pageid))[0]
                    if len(tokens) < p["article_min_tokens"] or any(title.startswith(ns + ":") for ns in IGNORED_NAMESPACES):
                        continue
                    if str(pageid) in first_seen:  # the doc id: two pages of one id would be refused at save, unnamed
                        raise ReaderError(f"{dump}: page id {pageid} ({title!r}) appears twice (first as "
                                          f"{first_seen[str(pageid)]})")
                    first_seen[str(pageid)] = f"{title!r} in {dump.name}"
                    rows.append({"doc_id": str(pageid), "title": title, "text": " ".join(tokens)})
            except ReaderError:
                raise
            except (EOFError, OSError, ValueError, SyntaxError) as err:  # ElementTree's ParseError is a SyntaxError
                raise ReaderError(f"{dump}: truncated or corrupt dump ({err})") from err
        return pd.DataFrame(rows)

    def build(self, corpora_dir=None, **p):
        if p["hoffman_vocab"] and p["vocab_file"] is None:
            self.source_dir(corpora_dir, "wiki_hoffman_vocab")  # its absence named as a missing source folder
            # relative: the text build reads a vocab_file under corpora_dir (source_dir's path would be joined twice)
            p = {**p, "vocab_file": HOFFMAN_VOCAB}
        corpus = super().build(corpora_dir, **p)
        corpus.meta["preprocessing"]["wiki_reader"] = "gensim.corpora.wikicorpus extract_pages + process_article"
        if p["hoffman_vocab"]:
            corpus.meta["preprocessing"]["vocab_file"] = HOFFMAN_VOCAB
        return corpus
