# Draws collectives-idle-root-iscatter-latency.png and collectives-idle-root-iscatter-latency.svg from collectives-idle-root-iscatter-latency.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'collectives-idle-root-iscatter-latency.png'
set title 'iscatter: I-collective + MPI_Wait without work (study collectives-idle-root, 2 ranks)'
set xlabel 'message size (block per rank)'
set ylabel 'T_lat (us), median'
set grid
set key outside right top
set logscale y
set logscale x 2
set xtics ('64 KiB' 65536, '1 MiB' 1048576)
plot 'collectives-idle-root-iscatter-latency.dat' index 0 using 1:2 with linespoints lw 2 pt 7 title 'simpi-none', \
     '' index 1 using 1:2 with linespoints lw 2 pt 7 title 'simpi-thread', \
     '' index 2 using 1:2 with linespoints lw 2 pt 7 title 'simpi-smart-h1', \
     '' index 3 using 1:2 with linespoints lw 2 pt 7 title 'mpich'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'collectives-idle-root-iscatter-latency.svg'
replot
unset output
