"""Mutants of the plumbing around the equations (session 16, branch ``mutant16``): the keep-the-old-result logic
(topicbench/previous.py), the plugin base class and the parameter coercion (topicbench/method.py), the dataset
recipes' parameters and source records (topicbench/dataset.py) and the figure/paper scripts (workflow/scripts/).

Each mutant here survived the suite before its test was written; equivalent survivors are listed in the report of
session 16 and not registered.
"""
from tests.mutants import Mutant

PREV = "tests/faults/test_previous_result.py::"

MUTANTS = [
    Mutant(id='previous_new_set_needs_every_file_new', cites='previous.finish: a set is new only when every file has a new (device, inode)',
           path='topicbench/previous.py', find='all(n is not None and n[:2] != o[:2] for n, o in zip(now, old))',
           replace='all(n is not None and n[:2] != o for n, o in zip(now, old))',
           tests=[PREV + 'test_rerun_that_rewrote_one_file_beside_its_old_siblings_gets_the_old_set_back']),
    Mutant(id='previous_keep_reads_an_output_outside_results_dir', cites='previous.keep: a set with an output outside results_dir is skipped before its files are looked at',
           path='topicbench/previous.py', find='        if not rels or None in rels or not all((root / rel).is_file() for rel in rels):\n',
           replace='        if not rels and None in rels or not all((root / rel).is_file() for rel in rels):\n',
           tests=[PREV + 'test_sets_that_cannot_be_kept_do_not_stop_the_others']),
    Mutant(id='previous_keep_stops_at_an_incomplete_set', cites='previous.keep: an incomplete set is skipped, the next sets still kept',
           path='topicbench/previous.py', find='        if not rels or None in rels or not all((root / rel).is_file() for rel in rels):\n            continue\n',
           replace='        if not rels or None in rels or not all((root / rel).is_file() for rel in rels):\n            break\n',
           tests=[PREV + 'test_sets_that_cannot_be_kept_do_not_stop_the_others']),
    Mutant(id='previous_keep_stops_at_a_set_without_hard_links', cites='previous.keep: a set that cannot be linked is named and skipped, the next sets still kept',
           path='topicbench/previous.py', find='            unkept.append(f"{rels[0]} ({err.strerror or err})")\n            continue\n',
           replace='            unkept.append(f"{rels[0]} ({err.strerror or err})")\n            break\n',
           tests=[PREV + 'test_set_that_cannot_be_linked_does_not_stop_the_next']),
    Mutant(id='previous_finish_restores_only_into_an_existing_parent', cites="previous.finish: a restored file's missing folders are made, parents too",
           path='topicbench/previous.py', find='                    target.parent.mkdir(parents=True, exist_ok=True)\n',
           replace='                    target.parent.mkdir(parents=False, exist_ok=True)\n',
           tests=[PREV + 'test_failed_rerun_whose_folders_were_removed_gets_its_folders_back']),
]
