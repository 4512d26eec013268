baselines/device-run .ab/recip2 comd
