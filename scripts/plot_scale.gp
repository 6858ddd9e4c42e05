# Plots of qpm_bench --scale (make bench-scale): hit rate and operations per cycle against
# the number of active QPs, one panel per workload and memory latency, a line per policy;
# beside ops/cycle, SPEC.md section 11.1's bound from the plru rows' measured miss rate
# (the column bound, dashed).
# Usage: gnuplot -e "csv='build/bench/scale.csv'; out='build/bench'" scripts/plot_scale.gp
set datafile separator ','
set terminal pngcairo size 1500,900 noenhanced font ',10'
set logscale x 2
set xrange [0.7:100000]
set key bottom left
set grid

policies = "plru lru random trap infinite"
workloads = "uniform zipf-0.99 zipf-1.2"
# rows of one workload, policy and latency: active_qps, then the column asked for
sel(w, p, l, col) = sprintf("< awk -F, '$1==\"%s\" && $2==\"%s\" && $4==%s {print $3\",\"$%d}' %s", w, p, l, col, csv)

do for [metric in "hit_rate ops_per_cycle"] {
  col = (metric eq "hit_rate") ? 5 : 6
  set output sprintf("%s/scale_%s.png", out, metric)
  set multiplot layout 2,3 title sprintf("qpm_bench --scale: %s against active QPs", metric)
  do for [lat in "100 1000"] {
    do for [w in workloads] {
      set title sprintf("%s, memory %s cycles", w, lat)
      set xlabel "active QPs"
      set ylabel metric
      if (metric eq "hit_rate") { set yrange [0:1.05] } else { set logscale y; set yrange [*:1.2] }
      if (metric eq "hit_rate") {
        plot for [p in policies] sel(w, p, lat, col) using 1:2 with linespoints title p
      } else {
        plot for [p in policies] sel(w, p, lat, col) using 1:2 with linespoints title p, \
             sel(w, "plru", lat, 14) using 1:2 with lines dashtype 2 lw 2 title "bound (plru)"
      }
      unset logscale y
    }
  }
  unset multiplot
}
