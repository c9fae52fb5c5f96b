/*!
The search layer: which configurations to measure and in what order. The sweep engine over the
block sizes of one configuration ([`sweep`]), the configurations of the axes put together
([`assemble`]), the rules of racing them ([`race`]), and the searches over them, a module a
strategy behind one interface ([`strategy`]: exhaustive, race, rungs); and the other commands'
plans: builds timed side by side in interleaved rounds ([`interleaved`], `compare`), grids of so many waves ([`waves`], `tail`), and every configuration
of the axes from each compiler at every block size ([`candidates`], `variants`).
*/

pub mod assemble;
pub mod candidates;
pub mod configurations;
pub mod interleaved;
pub mod race;
pub mod strategy;
pub mod sweep;
pub mod waves;
