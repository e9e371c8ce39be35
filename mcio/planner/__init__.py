"""A capacity planner's operations on mcio's results and models: a sweep (or a comparison) as a
table (:mod:`.table`), a self-contained HTML report (:mod:`.report`), and the headroom to a
service target with its confidence interval (:mod:`.headroom`). See docs/planner.md."""
