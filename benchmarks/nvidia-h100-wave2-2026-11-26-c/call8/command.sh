# Device call 8 (H100): skylight-exp = the build before b5ef534 with r_select; SKYLIGHT_PAD_ALL=1 enables Y_PAD_ZERO in df64 too.
scripts/ab $OUT/../ab8 2 "base=.ab/skylight-exp padall=.ab/padall" \
  "snap --kernel compute_Y,force --set twojmax=8,14 --precision df64 --set variant=fused --wg 128,256 --samples 5"
