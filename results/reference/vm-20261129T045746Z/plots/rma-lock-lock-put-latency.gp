# Draws rma-lock-lock-put-latency.png and rma-lock-lock-put-latency.svg from rma-lock-lock-put-latency.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'rma-lock-lock-put-latency.png'
set title 'MPI_Put in an exclusive lock held first by another origin, no delay, no work (study rma-lock)'
set xlabel 'message size'
set ylabel 'epoch time (us), median over the origins'
set grid
set key outside right top
set logscale y
set logscale x 2
set xtics ('64 KiB' 65536, '256 KiB' 262144, '1 MiB' 1048576)
plot 'rma-lock-lock-put-latency.dat' index 0 using 1:2 with linespoints lw 2 pt 7 title 'simpi-none', \
     '' index 1 using 1:2 with linespoints lw 2 pt 7 title 'simpi-thread', \
     '' index 2 using 1:2 with linespoints lw 2 pt 7 title 'simpi-smart-h1', \
     '' index 3 using 1:2 with linespoints lw 2 pt 7 title 'mpich'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'rma-lock-lock-put-latency.svg'
replot
unset output
