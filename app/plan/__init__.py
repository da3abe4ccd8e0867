"""Study to the loop date: the plan, day by day, and how ready it leaves you."""
