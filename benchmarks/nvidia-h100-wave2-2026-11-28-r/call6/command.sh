R=$OUT/../r6; mkdir -p $R
pack() { cp .ab/call6.sh $R/; tar -czf $OUT/r6.tgz -C $OUT/.. r6; }
trap pack EXIT
for i in 1 2; do
  for w in 1 6144 10240 15360 25600; do
    SKYLIGHT_EXP_PAD_WORDS=$w .ab/o run milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 256,512 --samples 30 --json $R/p$w-$i.json > $R/p$w-$i.txt 2>&1
  done
done
for w in 1 6144 10240 15360 25600; do SKYLIGHT_EXP_PAD_WORDS=$w .ab/o stats milc --kernel dslash-fused --precision f32,f64 --layout aosoa-32 --set complex=pairs --wg 256,512 > $R/stats-$w.txt 2>&1; done
