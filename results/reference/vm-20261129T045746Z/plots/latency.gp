# Draws latency.png and latency.svg from latency.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'latency.png'
set title 'Latency (latency, 1 pair)'
set xlabel 'message size'
set ylabel 'T_lat (us), median'
set grid
set key outside right top
set logscale y
set logscale x 2
set xtics ('16 KiB' 16384, '32 KiB' 32768, '64 KiB' 65536, '128 KiB' 131072, '256 KiB' 262144, '512 KiB' 524288, '1 MiB' 1048576)
plot 'latency.dat' index 0 using 1:2 with linespoints lw 2 pt 7 title 'simpi-none', \
     '' index 1 using 1:2 with linespoints lw 2 pt 7 title 'simpi-thread', \
     '' index 2 using 1:2 with linespoints lw 2 pt 7 title 'simpi-interrupt', \
     '' index 3 using 1:2 with linespoints lw 2 pt 7 title 'simpi-pef', \
     '' index 4 using 1:2 with linespoints lw 2 pt 7 title 'simpi-smart-h1', \
     '' index 5 using 1:2 with linespoints lw 2 pt 7 title 'simpi-ghost', \
     '' index 6 using 1:2 with linespoints lw 2 pt 7 title 'simpi-ghost-dup', \
     '' index 7 using 1:2 with linespoints lw 2 pt 7 title 'simpi-ghost-tag', \
     '' index 8 using 1:2 with linespoints lw 2 pt 7 title 'mpich', \
     '' index 9 using 1:2 with linespoints lw 2 pt 7 title 'mpich-async', \
     '' index 10 using 1:2 with linespoints lw 2 pt 7 title 'openmpi', \
     '' index 11 using 1:2 with linespoints lw 2 pt 7 title 'openmpi-async'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'latency.svg'
replot
unset output
