# Draws rma-one-to-many-fence-get-latency.png and rma-one-to-many-fence-get-latency.svg from rma-one-to-many-fence-get-latency.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'rma-one-to-many-fence-get-latency.png'
set title 'MPI_Get in a fence epoch, no delay, no work (study rma-one-to-many)'
set xlabel 'message size'
set ylabel 'epoch time (us), median over the origins'
set grid
set key outside right top
set logscale y
set logscale x 2
set xtics ('64 KiB' 65536, '256 KiB' 262144, '1 MiB' 1048576)
plot 'rma-one-to-many-fence-get-latency.dat' index 0 using 1:2 with linespoints lw 2 pt 7 title 'simpi-none', \
     '' index 1 using 1:2 with linespoints lw 2 pt 7 title 'simpi-thread', \
     '' index 2 using 1:2 with linespoints lw 2 pt 7 title 'simpi-smart-h1'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'rma-one-to-many-fence-get-latency.svg'
replot
unset output
