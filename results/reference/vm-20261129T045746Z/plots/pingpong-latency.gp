# Draws pingpong-latency.png and pingpong-latency.svg from pingpong-latency.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'pingpong-latency.png'
set title 'Ping-pong latency (study pingpong)'
set xlabel 'message size'
set ylabel 'latency (us), median of 3 rounds, min..max'
set grid
set key outside right top
set logscale y
set logscale x 2
set xtics ('1 B' 1, '4 B' 4, '16 B' 16, '64 B' 64, '256 B' 256, '1 KiB' 1024, '4 KiB' 4096, '16 KiB' 16384, '64 KiB' 65536, '256 KiB' 262144, '1 MiB' 1048576, '4 MiB' 4194304)
plot 'pingpong-latency.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-none', \
     '' index 1 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-thread', \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-interrupt', \
     '' index 3 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-pef', \
     '' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-smart-h1', \
     '' index 5 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-ghost', \
     '' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'mpich', \
     '' index 7 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'openmpi', \
     0.140231 with lines dt 2 lw 2 lc rgb 'gray40' title 'cache-line floor 0.140 us'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'pingpong-latency.svg'
replot
unset output
