# Draws latency-threads-latency.png and latency-threads-latency.svg from latency-threads-latency.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'latency-threads-latency.png'
set title 'Threads taking turns: latency (study latency_threads)'
set xlabel 'message size'
set ylabel 'latency (us), median'
set grid
set key outside right top
set logscale y
set logscale x 2
set xtics ('8 B' 8, '4 KiB' 4096, '64 KiB' 65536)
plot 'latency-threads-latency.dat' index 0 using 1:2 with linespoints lw 2 pt 7 title 'simpi-none', \
     '' index 1 using 1:2 with linespoints lw 2 pt 7 title 'simpi-thread', \
     '' index 2 using 1:2 with linespoints lw 2 pt 7 title 'simpi-interrupt', \
     '' index 3 using 1:2 with linespoints lw 2 pt 7 title 'simpi-pef', \
     '' index 4 using 1:2 with linespoints lw 2 pt 7 title 'simpi-smart-h1', \
     '' index 5 using 1:2 with linespoints lw 2 pt 7 title 'simpi-ghost', \
     '' index 6 using 1:2 with linespoints lw 2 pt 7 title 'mpich', \
     '' index 7 using 1:2 with linespoints lw 2 pt 7 title 'openmpi'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'latency-threads-latency.svg'
replot
unset output
