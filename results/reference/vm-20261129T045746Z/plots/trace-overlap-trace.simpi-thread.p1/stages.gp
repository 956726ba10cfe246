set terminal pngcairo noenhanced size 900,500 font 'sans,9'
set output 'stages.png'
set title 'Stage latencies of the rendezvous path'
set logscale x
set xlabel 'microseconds'
set ylabel 'transfers'
set grid
set key outside right
plot 'stages.dat' index 0 using 1:2 with linespoints title 'rts->move', \
     'stages.dat' index 1 using 1:2 with linespoints title 'move', \
     'stages.dat' index 2 using 1:2 with linespoints title 'move->sender done', \
     'stages.dat' index 3 using 1:2 with linespoints title 'rts->receiver in MPI'
