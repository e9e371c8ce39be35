"""A capacity planner's operations on mcio's results and models: a sweep (or a comparison) as a
table (:mod:`.table`), a self-contained HTML report (:mod:`.report`), the headroom to a service
target with its confidence interval (:mod:`.headroom`), and predictions with the uncertainty of
their inputs (:mod:`.uncertain`). See docs/planner.md."""
