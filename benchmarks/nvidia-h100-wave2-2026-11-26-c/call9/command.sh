# Device call 9 (H100): skylight-exp = b5ef534 plus SKYLIGHT_FLAT (both walks with no branch at a row's ends; kept for U's walk in f0e5d67).
scripts/ab $OUT/../ab9 2 "base=.ab/skylight-exp flat=.ab/flat" \
  "snap --kernel compute_U,compute_dE,force --set twojmax=8,14 --precision f64 --set variant=fused --wg 128,256 --samples 10" \
  "snap --kernel compute_U,compute_dE,force --set twojmax=8,14 --precision f32 --set variant=fused --wg 128,256 --samples 10" \
  "snap --kernel compute_U,compute_dE,force --set twojmax=8,14 --precision df64 --set variant=fused --wg 256 --samples 5"
