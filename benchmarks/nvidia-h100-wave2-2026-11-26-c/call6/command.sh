# Device call 6 (H100): skylight-exp = b3506fe plus SKYLIGHT_CLAMP (f64 compute_Y's u2 read clamped and zeroed by a select; kept in b5ef534).
scripts/ab $OUT/../ab6 3 "base=.ab/skylight-exp clamp=.ab/clamp" \
  "snap --kernel compute_Y,force --set twojmax=8,14 --precision f64 --set variant=fused --wg 128,256 --samples 10"
