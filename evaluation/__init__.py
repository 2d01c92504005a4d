"""The answers the audit is measured on, and the scripts that measure it (not shipped).

``answers/``: the self-written answer sets, built once (README.md says by which commit's
generators); ``real_answers/``: an external study's recorded runs (``bench/real_answers.py``
replays them). ``answer_sets`` reads and replays the self-written sets; ``audit_rates``,
``holdout_rates``, ``holdout3_rates`` and ``audit_snapshot`` measure the audit on them.
"""
