# Draws pingpong-latency.png and pingpong-latency.svg from pingpong-latency.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'pingpong-latency.png'
set title 'Ping-pong latency'
set xlabel 'message size'
set ylabel 'latency (us), median'
set grid
set key outside right top
set logscale y
set logscale x 2
set xtics ('0 B' 0, '1 B' 1, '2 B' 2, '4 B' 4, '8 B' 8, '16 B' 16, '32 B' 32, '64 B' 64, '128 B' 128, '256 B' 256, '512 B' 512, '1 KiB' 1024, '2 KiB' 2048, '4 KiB' 4096, '8 KiB' 8192, '16 KiB' 16384, '32 KiB' 32768, '64 KiB' 65536, '128 KiB' 131072, '256 KiB' 262144, '512 KiB' 524288, '1 MiB' 1048576)
plot 'pingpong-latency.dat' index 0 using 1:2 with linespoints lw 2 pt 7 title 'simpi-none', \
     '' index 1 using 1:2 with linespoints lw 2 pt 7 title 'simpi-smart-h1', \
     '' index 2 using 1:2 with linespoints lw 2 pt 7 title 'mpich'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'pingpong-latency.svg'
replot
unset output
