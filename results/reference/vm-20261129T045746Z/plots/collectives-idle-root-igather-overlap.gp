# Draws collectives-idle-root-igather-overlap.png and collectives-idle-root-igather-overlap.svg from collectives-idle-root-igather-overlap.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'collectives-idle-root-igather-overlap.png'
set title 'igather: overlap at T_syn = T_lat (study collectives-idle-root, 2 ranks)'
set xlabel 'message size (block per rank)'
set ylabel 'overlap (%), median, min..max over the benchmark''s rounds'
set grid
set key outside right top
set logscale x 2
set xtics ('64 KiB' 65536, '1 MiB' 1048576)
plot 'collectives-idle-root-igather-overlap.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-none', \
     '' index 1 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-thread', \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-smart-h1', \
     '' index 3 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'mpich'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'collectives-idle-root-igather-overlap.svg'
replot
unset output
