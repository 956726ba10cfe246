# Draws dtype-blocks_16384.png and dtype-blocks_16384.svg from dtype-blocks_16384.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'dtype-blocks_16384.png'
set title 'Strided ping-pong: blocks_16384 (study dtype)'
set xlabel 'message size'
set ylabel 'one-way latency (us), median of 3 rounds, min..max'
set grid
set key outside right top
set logscale y
set logscale x 2
set xtics ('64 KiB' 65536, '128 KiB' 131072, '256 KiB' 262144, '512 KiB' 524288, '1 MiB' 1048576, '2 MiB' 2097152, '4 MiB' 4194304)
plot 'dtype-blocks_16384.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-none', \
     '' index 1 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-ghost', \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'mpich', \
     '' index 3 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'openmpi'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'dtype-blocks_16384.svg'
replot
unset output
