"""Equation mutants of the figure files' constants (round 6): a count a table or caption is computed with, the rows a
figure selects. Each survived tests/test_figures.py when generated; the listed test was written for it on hand-made
inputs whose table is known by hand."""
from tests.mutants import Mutant

FIG = "tests/test_figures.py::"

MUTANTS = [
    Mutant(id="figure_paisley_table11_4_twelve_rest_topics", cites="Paisley et al. 2014, Table 11.4 mirror (11 less "
           "probable topics, evenly spaced after the top 40)", path="workflow/figures/_paisley_topics.py",
           find="N_TOP, N_REST, N_WORDS = 40, 11, 10", replace="N_TOP, N_REST, N_WORDS = 40, 12, 10",
           tests=[FIG + "test_paisley_table11_4_samples_eleven_of_the_ranks_after_the_top_forty"]),
    Mutant(id="figure_hoffman_fig2_peer_without_bound_ends_the_size", cites="Hoffman et al. 2010, Fig. 2 mirror (a peer "
           "without the eq. 16 bound is skipped on that panel, not the methods after it)", path="workflow/figures/hoffman_fig2.py",
           find="                continue  # a peer without the LDA bound",
           replace="                break  # a peer without the LDA bound",
           tests=[FIG + "test_hoffman_fig2_draws_every_online_method_and_batch_vb_against_cpu_seconds"]),
    Mutant(id="figure_hoffman_fig2_batch_line_named_by_its_label", cites="Hoffman et al. 2010, Fig. 2 mirror (batch VB "
           "on the full corpus and on a subset, each named by the documents it trained on)",
           path="workflow/figures/hoffman_fig2.py",
           find='name = f"batch VB, {figlib.training_set_name(size, full_size)}"',
           replace='name = "batch VB, full corpus" if "full" in label else f"batch VB, {figlib.training_set_name(size, full_size)}"',
           tests=[FIG + "test_hoffman_fig2_names_each_batch_line_by_the_documents_it_trained_on"]),
    Mutant(id="figure_hoffman_fig1_line_named_by_its_label", cites="Hoffman et al. 2010, Fig. 1 mirror (online LDA on "
           "the full corpus and on a subset, each named by the documents it trained on)",
           path="workflow/figures/hoffman_fig1.py",
           find='what = figlib.training_set_name(size, full_size)',
           replace='what = "full corpus" if label == "online_full" else figlib.training_set_name(size, full_size)',
           tests=[FIG + "test_hoffman_fig1_follows_the_most_prevalent_topic_from_the_first_checkpoint"]),
    Mutant(id="claim_hoffman_fig1_judged_by_labels_alone", cites="Hoffman et al. 2010, Fig. 1 claim (the full corpus "
           "must hold more documents than the subset)", path="workflow/figures/_claims.py",
           find='            or sizes["online_full"][0] <= sizes["online_subset"][0]:',
           replace='            or sizes["online_full"][0] < sizes["online_subset"][0]:',
           tests=[FIG + "test_hoffman_larger_corpus_cannot_be_judged_unless_full_trains_on_more[20-20]"]),
    Mutant(id="claim_hoffman_fig1_full_on_fewer_documents", cites="Hoffman et al. 2010, Fig. 1 claim (the full corpus "
           "must hold more documents than the subset)", path="workflow/figures/_claims.py",
           find='            or sizes["online_full"][0] <= sizes["online_subset"][0]:',
           replace='            or False:',
           tests=[FIG + "test_hoffman_larger_corpus_cannot_be_judged_unless_full_trains_on_more[20-100]"]),
    Mutant(id="figure_hoffman_fig2_full_corpus_is_the_smallest", cites="Hoffman et al. 2010, Fig. 2 mirror (the full "
           "corpus is the runs' training split)", path="workflow/figures/hoffman_fig2.py",
           find='full_size = figlib.full_corpus_size(frame)', replace='full_size = int(frame["corpus_size"].min())',
           tests=[FIG + "test_hoffman_fig2_names_each_batch_line_by_the_documents_it_trained_on"]),
    Mutant(id="figure_full_corpus_is_the_largest_run", cites="Hoffman et al. 2010, Figs. 1 and 2 mirrors (a line is the "
           "full corpus only if it trained on the whole training split; every run may train on a subset)",
           path="workflow/scripts/figlib.py",
           find='return int(sizes[0]) if len(sizes) == 1 else None', replace='return int(frame["corpus_size"].max())',
           tests=[FIG + "test_hoffman_fig1_follows_the_most_prevalent_topic_from_the_first_checkpoint"]),
    Mutant(id="figure_hoffman_fig2_batch_line_mixes_subsets", cites="Hoffman et al. 2010, Fig. 2 mirror (one batch VB "
           "line per training set; figlib.training_size, shared with Fig. 1)", path="workflow/scripts/figlib.py",
           find="    if len(sizes) != 1:\n        raise ValueError(f\"{what} trained on {sizes} documents",
           replace="    if len(sizes) < 1:\n        raise ValueError(f\"{what} trained on {sizes} documents",
           tests=[FIG + "test_hoffman_fig2_names_each_batch_line_by_the_documents_it_trained_on"]),
    Mutant(id="figure_shorttext_drops_a_missing_method", cites="short-text figure (streaming VB and SVI each a column; "
           "a method missing from the traces is said, not dropped)", path="workflow/figures/shorttext_alpha.py",
           find="    methods = list(METHODS)  # a column each",
           replace='    methods = [m for m in METHODS if m in set(frame["method"])]  # a column each',
           tests=[FIG + "test_shorttext_figure_marks_a_method_missing_from_the_traces"]),
    Mutant(id="claim_shorttext_missing_method_unnamed", cites="the harness's short-text claim (a method without runs "
           "is named as not judged)", path="workflow/figures/_claims.py",
           find='                if not ((final["experiment"] == experiment) & (final["method"] == method)).any()]',
           replace="                if False]",
           tests=[FIG + "test_shorttext_alpha_claim_names_a_method_it_could_not_judge"]),
    Mutant(id="claim_shorttext_one_setting_unnamed", cites="the harness's short-text claim (a method at one alpha = eta "
           "setting is named as not judged)", path="workflow/figures/_claims.py",
           find='            unjudged.append(f"{experiment} {figlib.name(method)}: one alpha = eta setting only")\n',
           replace="", tests=[FIG + "test_shorttext_alpha_claim_names_a_method_it_could_not_judge"]),
    Mutant(id="figure_hu_fig4_search_drawn_against_its_evidence", cites="Hu et al. 2014, Fig. 4 mirror (eq. 8's search "
           "curve against log10 alpha)", path="workflow/figures/hu_fig4.py",
           find='top.plot(search[order, 0], ev,', replace='top.plot(search[order, 1], ev,',
           tests=[FIG + "test_hu_fig4_reads_the_first_seed_the_heaviest_grid_point_and_the_posterior_relative_to_its_max"]),
    Mutant(id="figure_hu_fig4_validation_drawn_against_its_evidence", cites="Hu et al. 2014, Fig. 4 mirror (the "
           "search's validation scores against log10 alpha)", path="workflow/figures/hu_fig4.py",
           find="twin.plot(search[order, 0], search[order, 2],", replace="twin.plot(search[order, 1], search[order, 2],",
           tests=[FIG + "test_hu_fig4_draws_the_searchs_validation_scores_against_log10_alpha"]),
    Mutant(id="figure_hu_fig5_caption_names_fig6", cites="Hu et al. 2014, Fig. 5 mirror (its caption's figure number)",
           path="workflow/figures/hu_fig5.py", find='"documents seen (log scale)", 5,',
           replace='"documents seen (log scale)", 6,', tests=[FIG + "test_hu_fig5_and_fig6_captions_name_their_figure"]),
    Mutant(id="figure_mcinerney_fig1_level_line_named_below", cites="McInerney et al. 2015, Fig. 1 mirror (lines "
           "ending strictly below the word-frequency baseline)", path="workflow/figures/mcinerney_fig1.py",
           find='below = table[table["minus unigram"] < 0]', replace='below = table[table["minus unigram"] <= 0]',
           tests=[FIG + "test_mcinerney_fig1_caption_names_the_lines_ending_below_the_baseline"]),
    Mutant(id="figure_paisley_fig11_3_nth_batch_from_the_second_row", cites="Paisley et al. 2014, sec. 11.6 (every "
           "n-th minibatch held out: n from the first scored batch)", path="workflow/figures/paisley_fig11_3.py",
           find='first = frame.sort_values("docs_seen").iloc[0]', replace='first = frame.sort_values("docs_seen").iloc[1]',
           tests=[FIG + "test_paisley_fig11_3_table_is_the_mean_over_seeds_and_the_caption_names_the_nth_batch"]),
    Mutant(id="figure_paisley_fig11_3_dropped_count_without_its_column", cites="Paisley et al. 2014, Fig. 11.3 mirror "
           "(no dropped documents claimed where results carry no count)", path="workflow/figures/paisley_fig11_3.py",
           find='if "heldout_excluded" in frame else 0', replace='if "heldout_excluded" in frame else 1',
           tests=[FIG + "test_paisley_fig11_3_table_is_the_mean_over_seeds_and_the_caption_names_the_nth_batch"]),
    Mutant(id="figure_mcinerney_fig1_dropped_count_without_its_column", cites="McInerney et al. 2015, Fig. 1 mirror "
           "(no dropped documents claimed where results carry no count)", path="workflow/figures/mcinerney_fig1.py",
           find='if "heldout_excluded" in frame else 0', replace='if "heldout_excluded" in frame else 1',
           tests=[FIG + "test_mcinerney_fig1_caption_names_the_lines_ending_below_the_baseline"]),
    Mutant(id="figure_shorttext_level_line_named_below", cites="short-text figure (lines ending strictly below the "
           "word-frequency baseline)", path="workflow/figures/shorttext_alpha.py",
           find='below = table[table["final minus unigram"] < 0]', replace='below = table[table["final minus unigram"] <= 0]',
           tests=[FIG + "test_shorttext_figure_tables_first_final_and_baseline_and_says_which_lines_end_below"]),
]
